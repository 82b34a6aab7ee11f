//! The column codecs of a history block ([`super`]): the points of one series are stored
//! column by column, each column in the codec that suits it. Timestamps (u32 seconds) go
//! as delta-of-delta zigzag varints: a steady 5-minute read costs one byte a point.
//! Floating values (traffic rates, f32) go as Gorilla XOR bit streams, which keep every
//! bit of every value and cost a bit for a repeated value; scaled integers (optics in
//! centi-dBm, °C, V, mA, and the level) go as delta zigzag varints, a byte for a reading
//! that barely moves. The choice was measured (`codecs_on_realistic_series` below,
//! docs/api.md "Traffic"). Every decoder takes untrusted bytes: it answers `None` for
//! anything it cannot read, never panics, and never allocates more than the bytes allow.

/// Appends `value` as a LEB128 varint.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn zigzag(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

fn unzigzag(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// Reads varints and bit streams off a block, front to back.
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.at
    }

    pub fn byte(&mut self) -> Option<u8> {
        let byte = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(byte)
    }

    pub fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte()?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return None;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    fn signed(&mut self) -> Option<i64> {
        self.varint().map(unzigzag)
    }
}

/// Appends the timestamps as delta-of-delta zigzag varints (the first as it is).
pub fn put_times(out: &mut Vec<u8>, times: &[u32]) {
    let (mut previous, mut delta) = (0i64, 0i64);
    for (i, &time) in times.iter().enumerate() {
        let time = i64::from(time);
        if i == 0 {
            put_varint(out, time as u64);
        } else {
            let next = time - previous;
            put_varint(out, zigzag(next - delta));
            delta = next;
        }
        previous = time;
    }
}

/// `count` timestamps written by [`put_times`].
pub fn times(reader: &mut Reader, count: usize) -> Option<Vec<u32>> {
    let mut times = Vec::with_capacity(count.min(reader.remaining()));
    let (mut previous, mut delta) = (0i64, 0i64);
    for i in 0..count {
        let time = if i == 0 {
            i64::try_from(reader.varint()?).ok()?
        } else {
            delta = delta.checked_add(reader.signed()?)?;
            previous.checked_add(delta)?
        };
        times.push(u32::try_from(time).ok()?);
        previous = time;
    }
    Some(times)
}

/// Appends scaled integers as delta zigzag varints.
pub fn put_integers(out: &mut Vec<u8>, values: impl IntoIterator<Item = i32>) {
    let mut previous = 0i64;
    for value in values {
        let value = i64::from(value);
        put_varint(out, zigzag(value - previous));
        previous = value;
    }
}

/// `count` integers written by [`put_integers`].
pub fn integers(reader: &mut Reader, count: usize) -> Option<Vec<i32>> {
    let mut values = Vec::with_capacity(count.min(reader.remaining()));
    let mut previous = 0i64;
    for _ in 0..count {
        previous = previous.checked_add(reader.signed()?)?;
        values.push(i32::try_from(previous).ok()?);
    }
    Some(values)
}

/// Appends f32 values as a Gorilla XOR bit stream, padded to a whole byte: the first
/// value's 32 bits; then per value `0` (same bits as the one before), `10` and the
/// meaningful bits in the window of the value before, or `11`, 5 bits of leading zeros,
/// 5 bits of (meaningful length − 1) and the meaningful bits.
pub fn put_floats(out: &mut Vec<u8>, values: impl IntoIterator<Item = f32>) {
    let mut bits = BitWriter {
        out,
        acc: 0,
        len: 0,
    };
    let mut previous: Option<u32> = None;
    let (mut lead, mut trail) = (u32::MAX, 0u32);
    for value in values {
        let value = value.to_bits();
        let Some(before) = previous.replace(value) else {
            bits.put(u64::from(value), 32);
            continue;
        };
        let xor = value ^ before;
        if xor == 0 {
            bits.put(0, 1);
            continue;
        }
        let (l, t) = (xor.leading_zeros().min(31), xor.trailing_zeros());
        if lead != u32::MAX && l >= lead && t >= trail {
            bits.put(0b10, 2);
            bits.put(u64::from(xor >> trail), 32 - lead - trail);
        } else {
            let meaningful = 32 - l - t;
            bits.put(0b11, 2);
            bits.put(u64::from(l), 5);
            bits.put(u64::from(meaningful - 1), 5);
            bits.put(u64::from(xor >> t), meaningful);
            (lead, trail) = (l, t);
        }
    }
    bits.finish();
}

/// `count` values written by [`put_floats`]; the reader moves past its padding.
pub fn floats(reader: &mut Reader, count: usize) -> Option<Vec<f32>> {
    let mut bits = BitReader {
        reader,
        acc: 0,
        len: 0,
    };
    let mut values = Vec::with_capacity(count.min(bits.reader.remaining() * 8 + 1));
    let mut previous = 0u32;
    let (mut lead, mut trail) = (u32::MAX, 0u32);
    for i in 0..count {
        let value = if i == 0 {
            bits.take(32)? as u32
        } else if bits.take(1)? == 0 {
            previous
        } else if bits.take(1)? == 0 {
            if lead == u32::MAX {
                return None;
            }
            let meaningful = bits.take(32 - lead - trail)? as u32;
            previous ^ (meaningful << trail)
        } else {
            let l = bits.take(5)? as u32;
            let meaningful = bits.take(5)? as u32 + 1;
            if l + meaningful > 32 {
                return None;
            }
            (lead, trail) = (l, 32 - l - meaningful);
            let xor = bits.take(meaningful)? as u32;
            previous ^ (xor << trail)
        };
        values.push(f32::from_bits(value));
        previous = value;
    }
    Some(values)
}

struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    len: u32,
}

impl BitWriter<'_> {
    /// Appends the low `count` bits of `value` (`count` ≤ 32), high bit first.
    fn put(&mut self, value: u64, count: u32) {
        if count == 0 {
            return;
        }
        self.acc = (self.acc << count) | (value & ((1u64 << count) - 1));
        self.len += count;
        while self.len >= 8 {
            self.len -= 8;
            self.out.push((self.acc >> self.len) as u8);
        }
    }

    fn finish(mut self) {
        if self.len > 0 {
            let pad = 8 - self.len;
            self.put(0, pad);
        }
    }
}

struct BitReader<'r, 'a> {
    reader: &'r mut Reader<'a>,
    acc: u64,
    len: u32,
}

impl BitReader<'_, '_> {
    /// The next `count` bits (≤ 32), high bit first; a partly read byte is dropped when
    /// the reader is let go.
    fn take(&mut self, count: u32) -> Option<u64> {
        if count == 0 {
            return Some(0);
        }
        while self.len < count {
            self.acc = (self.acc << 8) | u64::from(self.reader.byte()?);
            self.len += 8;
        }
        self.len -= count;
        let value = (self.acc >> self.len) & ((1u64 << count) - 1);
        self.acc &= (1u64 << self.len) - 1;
        Some(value)
    }
}

#[cfg(test)]
pub(crate) mod tests;
