//! The on-disk form of one OLT's ONU table in the `onus` tree: a compact binary record
//! written by [`super::Store::save_onus`] and read by [`super::Store::load_onus`]. It
//! replaced JSON, which cost a full re-serialisation of every ONU (about 350 bytes each)
//! after every poll; a binary record is about a fifth of the size and needs no text
//! formatting. Records written by older versions (a JSON array, first byte `[`) are still
//! read; the next write of the table replaces them with the binary form, so no migration
//! step is needed on open.
//!
//! An ONU's `last_update` moves with every good poll that sees it, so storing it
//! verbatim would make every table "changed" after every poll. Instead an ONU seen in the
//! table's latest poll is stored as *current*, without a time: on load it takes the later
//! of the record's reference time and the OLT's `last_success_at` (which the OLT record
//! carries after every good poll). The table is therefore rewritten only when something
//! other than the poll time changed.
//!
//! Layout (integers big-endian): version byte `1`; reference time (i64 seconds, u32
//! nanoseconds); ONU count (u32); then per ONU: id (u64), OLT id, ONU index (u32 each); PON
//! port and serial (u8 length + UTF-8), description (u16 length + UTF-8); status (u8),
//! last down cause (u8, 0 = none); a presence bitmap (u8) for distance, Rx, Tx, OLT Rx,
//! VLAN and "current"; a second presence bitmap (u8) for temperature, voltage and bias
//! current; the present values (u32, six f64, u16); and, unless current, the last update
//! (i64 seconds, u32 nanoseconds); and, when its bit of the second bitmap is set, when
//! the optics were last read (i64 seconds, u32 nanoseconds). Version `1` records, written
//! before the transceiver readings were kept, lack the second bitmap, and version `2`
//! records never set the optics time's bit; both are still read.

use crate::domain::{CompactString, DownCause, Onu, OnuStatus, Reading};
use chrono::{DateTime, Utc};

const VERSION: u8 = 3;
/// Records without the optics time.
const VERSION_2: u8 = 2;
/// Records without the transceiver bitmap.
const VERSION_1: u8 = 1;

const HAS_DISTANCE: u8 = 1;
const HAS_RX: u8 = 1 << 1;
const HAS_TX: u8 = 1 << 2;
const HAS_OLT_RX: u8 = 1 << 3;
const HAS_VLAN: u8 = 1 << 4;
const CURRENT: u8 = 1 << 5;

const HAS_TEMPERATURE: u8 = 1;
const HAS_VOLTAGE: u8 = 1 << 1;
const HAS_BIAS: u8 = 1 << 2;
const HAS_OPTICS_AT: u8 = 1 << 3;

/// Encodes `onus`; those whose `last_update` equals `polled_at` are stored as current.
pub fn encode(onus: &[Onu], polled_at: Option<DateTime<Utc>>) -> Vec<u8> {
    let mut out = Vec::with_capacity(17 + onus.len() * 64);
    out.push(VERSION);
    put_time(&mut out, polled_at.unwrap_or(DateTime::<Utc>::MIN_UTC));
    out.extend_from_slice(&(onus.len() as u32).to_be_bytes());
    for onu in onus {
        out.extend_from_slice(&onu.id.to_be_bytes());
        out.extend_from_slice(&onu.olt_id.to_be_bytes());
        out.extend_from_slice(&onu.onu_index.to_be_bytes());
        put_text(&mut out, &onu.pon_port, u8::MAX as usize);
        put_text(&mut out, &onu.serial, u8::MAX as usize);
        put_text(&mut out, &onu.description, u16::MAX as usize);
        out.push(match onu.status {
            OnuStatus::Online => 0,
            OnuStatus::Offline => 1,
        });
        out.push(match onu.last_down_cause {
            None => 0,
            Some(DownCause::Los) => 1,
            Some(DownCause::DyingGasp) => 2,
            Some(DownCause::Deactivated) => 3,
            Some(DownCause::Unknown) => 4,
            Some(DownCause::Reboot) => 5,
        });
        let current = Some(onu.last_update) == polled_at;
        let flags = flag(onu.distance.is_some(), HAS_DISTANCE)
            | flag(onu.rx_power.is_some(), HAS_RX)
            | flag(onu.tx_power.is_some(), HAS_TX)
            | flag(onu.olt_rx_power.is_some(), HAS_OLT_RX)
            | flag(onu.vlan.is_some(), HAS_VLAN)
            | flag(current, CURRENT);
        out.push(flags);
        out.push(
            flag(onu.temperature.is_some(), HAS_TEMPERATURE)
                | flag(onu.voltage.is_some(), HAS_VOLTAGE)
                | flag(onu.bias_current.is_some(), HAS_BIAS)
                | flag(onu.optics_at.is_some(), HAS_OPTICS_AT),
        );
        if let Some(d) = onu.distance {
            out.extend_from_slice(&d.to_be_bytes());
        }
        let readings = [
            onu.rx_power,
            onu.tx_power,
            onu.olt_rx_power,
            onu.temperature,
            onu.voltage,
            onu.bias_current,
        ];
        for power in readings.into_iter().filter_map(Reading::get) {
            out.extend_from_slice(&power.to_bits().to_be_bytes());
        }
        if let Some(v) = onu.vlan {
            out.extend_from_slice(&v.to_be_bytes());
        }
        if !current {
            put_time(&mut out, onu.last_update);
        }
        if let Some(at) = onu.optics_at {
            put_time(&mut out, at);
        }
    }
    out
}

/// Whether `bytes` is a record of this encoding (not an older JSON array).
pub fn is_binary(bytes: &[u8]) -> bool {
    matches!(bytes.first(), Some(&VERSION | &VERSION_2 | &VERSION_1))
}

/// Decodes a record; current ONUs get the later of the reference time and
/// `last_success_at`.
pub fn decode(bytes: &[u8], last_success_at: Option<DateTime<Utc>>) -> Result<Vec<Onu>, String> {
    let mut r = Reader { bytes, at: 0 };
    let version = r.u8()?;
    if ![VERSION, VERSION_2, VERSION_1].contains(&version) {
        return Err(format!("unknown ONU table encoding {version}"));
    }
    let reference = r.time()?;
    let current_time = last_success_at.map_or(reference, |s| s.max(reference));
    let count = r.u32()? as usize;
    let mut onus = Vec::with_capacity(count.min(bytes.len() / 16));
    for _ in 0..count {
        let id = r.u64()?;
        let olt_id = r.u32()?;
        let onu_index = r.u32()?;
        let pon_port = r.text(1)?;
        let serial = r.text(1)?;
        let description = r.text(2)?;
        let status = match r.u8()? {
            0 => OnuStatus::Online,
            1 => OnuStatus::Offline,
            other => return Err(format!("unknown ONU status {other}")),
        };
        let last_down_cause = match r.u8()? {
            0 => None,
            1 => Some(DownCause::Los),
            2 => Some(DownCause::DyingGasp),
            3 => Some(DownCause::Deactivated),
            4 => Some(DownCause::Unknown),
            5 => Some(DownCause::Reboot),
            other => return Err(format!("unknown down cause {other}")),
        };
        let flags = r.u8()?;
        let transceiver = if version == VERSION_1 { 0 } else { r.u8()? };
        let distance = (flags & HAS_DISTANCE != 0).then(|| r.u32()).transpose()?;
        let rx_power = (flags & HAS_RX != 0).then(|| r.f64()).transpose()?;
        let tx_power = (flags & HAS_TX != 0).then(|| r.f64()).transpose()?;
        let olt_rx_power = (flags & HAS_OLT_RX != 0).then(|| r.f64()).transpose()?;
        let mut reading = |bit: u8| (transceiver & bit != 0).then(|| r.f64()).transpose();
        let temperature = reading(HAS_TEMPERATURE)?;
        let voltage = reading(HAS_VOLTAGE)?;
        let bias_current = reading(HAS_BIAS)?;
        let vlan = (flags & HAS_VLAN != 0).then(|| r.u16()).transpose()?;
        let last_update = if flags & CURRENT != 0 {
            current_time
        } else {
            r.time()?
        };
        let optics_at = (transceiver & HAS_OPTICS_AT != 0)
            .then(|| r.time())
            .transpose()?;
        onus.push(Onu {
            id,
            olt_id,
            pon_port: pon_port.into(),
            onu_index,
            serial,
            description,
            status,
            last_down_cause,
            distance,
            rx_power: rx_power.into(),
            tx_power: tx_power.into(),
            olt_rx_power: olt_rx_power.into(),
            temperature: temperature.into(),
            voltage: voltage.into(),
            bias_current: bias_current.into(),
            vlan,
            last_update,
            optics_at,
        });
    }
    if r.at != bytes.len() {
        return Err(format!("{} trailing bytes", bytes.len() - r.at));
    }
    Ok(onus)
}

fn flag(set: bool, bit: u8) -> u8 {
    if set {
        bit
    } else {
        0
    }
}

fn put_time(out: &mut Vec<u8>, at: DateTime<Utc>) {
    out.extend_from_slice(&at.timestamp().to_be_bytes());
    out.extend_from_slice(&at.timestamp_subsec_nanos().to_be_bytes());
}

/// Writes a length-prefixed text, cut (at a character boundary) to what the prefix holds.
fn put_text(out: &mut Vec<u8>, text: &str, max: usize) {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if max <= u8::MAX as usize {
        out.push(end as u8);
    } else {
        out.extend_from_slice(&(end as u16).to_be_bytes());
    }
    out.extend_from_slice(&text.as_bytes()[..end]);
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or_else(|| format!("record ends early at byte {}", self.at))?;
        self.at += N;
        let mut out = [0; N];
        out.copy_from_slice(slice);
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_be_bytes(self.take()?))
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_be_bytes(self.take()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_be_bytes(self.take()?))
    }

    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_bits(u64::from_be_bytes(self.take()?)))
    }

    fn time(&mut self) -> Result<DateTime<Utc>, String> {
        let seconds = i64::from_be_bytes(self.take()?);
        let nanos = self.u32()?;
        DateTime::from_timestamp(seconds, nanos).ok_or_else(|| format!("bad time {seconds}"))
    }

    fn text(&mut self, prefix: usize) -> Result<CompactString, String> {
        let len = if prefix == 1 {
            usize::from(self.u8()?)
        } else {
            usize::from(self.u16()?)
        };
        let slice = self
            .bytes
            .get(self.at..self.at + len)
            .ok_or_else(|| format!("text ends early at byte {}", self.at))?;
        self.at += len;
        let text = std::str::from_utf8(slice).map_err(|e| e.to_string())?;
        Ok(CompactString::from(text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn onu(id: u64, at: DateTime<Utc>) -> Onu {
        Onu {
            id,
            olt_id: 7,
            pon_port: "0/1/3".into(),
            onu_index: (id % 128) as u32,
            serial: format!("HWTC{id:08X}").into(),
            description: "Школа № 3".into(),
            status: OnuStatus::Offline,
            last_down_cause: Some(DownCause::DyingGasp),
            distance: Some(1234),
            rx_power: Some(-21.37).into(),
            tx_power: Reading::NONE,
            olt_rx_power: Some(-19.5).into(),
            temperature: Some(41.0).into(),
            voltage: Reading::NONE,
            bias_current: Some(19.0).into(),
            vlan: Some(100),
            last_update: at,
            optics_at: None,
        }
    }

    #[test]
    fn version_1_records_are_still_read() {
        let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let mut old = onu(1, at);
        old.temperature = Reading::NONE;
        old.bias_current = Reading::NONE;
        let mut bytes = encode(std::slice::from_ref(&old), Some(at));
        // Header (17 bytes), then id, OLT id, index (16), port, serial, description,
        // status and cause, and the first bitmap: the transceiver bitmap follows it.
        let at_bitmap = 17
            + 16
            + 1
            + old.pon_port.len()
            + 1
            + old.serial.len()
            + 2
            + old.description.len()
            + 2
            + 1;
        assert_eq!(bytes.remove(at_bitmap), 0, "no transceiver readings");
        bytes[0] = VERSION_1;
        assert!(is_binary(&bytes));
        assert_eq!(decode(&bytes, None).expect("decode"), vec![old]);
    }

    #[test]
    fn round_trips_and_current_onus_follow_the_last_good_poll() {
        let polled = DateTime::from_timestamp(1_800_000_000, 123_456_789).expect("time");
        let older = DateTime::from_timestamp(1_799_000_000, 5).expect("time");
        let mut vanished = onu(2, older);
        vanished.status = OnuStatus::Online;
        vanished.last_down_cause = None;
        vanished.distance = None;
        vanished.vlan = None;
        let onus = vec![onu(1, polled), vanished];
        let bytes = encode(&onus, Some(polled));
        assert!(is_binary(&bytes));
        assert_eq!(decode(&bytes, None).expect("decode"), onus);
        assert_eq!(decode(&bytes, Some(older)).expect("decode"), onus);

        // A later good poll that changed nothing did not rewrite the record.
        let later = DateTime::from_timestamp(1_800_000_300, 0).expect("time");
        let decoded = decode(&bytes, Some(later)).expect("decode");
        assert_eq!(decoded[0].last_update, later);
        assert_eq!(decoded[1].last_update, older, "not seen since");
    }

    #[test]
    fn truncated_records_are_refused() {
        let at = DateTime::from_timestamp(1_800_000_000, 0).expect("time");
        let bytes = encode(&[onu(1, at)], Some(at));
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], None).is_err(), "cut at {cut}");
        }
    }
}
