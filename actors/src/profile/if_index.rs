//! Port ifIndexes that spell their port: Huawei packs `frame/slot/port` into a GPON
//! port's ifIndex, so a port IF-MIB does not list can still be named from the ONU rows'
//! index. The layout is data on the profile ([`super::Profile::port_if_index`]); the
//! poller decodes with it and the simulator encodes with it. The layouts themselves are
//! in their vendors' folders ([`super::HUAWEI_GPON`], [`super::ZTE_C600_GPON`]).

/// `kind << kind_shift | frame << frame_shift | slot << slot_shift | port << port_shift`,
/// each field running up to the next shift and the bits below `port_shift` zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IfIndexLayout {
    pub kind: u32,
    pub kind_shift: u32,
    pub frame_shift: u32,
    pub slot_shift: u32,
    pub port_shift: u32,
}

impl IfIndexLayout {
    /// The ifIndex of port `frame/slot/port`, `None` when a field does not fit.
    pub fn if_index(&self, frame: u32, slot: u32, port: u32) -> Option<u32> {
        let fits = |value: u32, low: u32, high: u32| u64::from(value) < (1u64 << (high - low));
        let fields = [
            (frame, self.frame_shift, self.kind_shift),
            (slot, self.slot_shift, self.frame_shift),
            (port, self.port_shift, self.slot_shift),
        ];
        if !fields.iter().all(|&(v, low, high)| fits(v, low, high)) {
            return None;
        }
        Some(
            self.kind.checked_shl(self.kind_shift)?
                | frame << self.frame_shift
                | slot << self.slot_shift
                | port << self.port_shift,
        )
    }

    /// `frame/slot/port` of a port ifIndex, `None` when the ifIndex is not one.
    pub fn port_name(&self, if_index: u32) -> Option<String> {
        let field = |low: u32, high: u32| (if_index >> low) & ((1u32 << (high - low)) - 1);
        let kind = if_index.checked_shr(self.kind_shift)?;
        let below = if_index & ((1u32 << self.port_shift) - 1);
        if kind != self.kind || below != 0 {
            return None;
        }
        Some(format!(
            "{}/{}/{}",
            field(self.frame_shift, self.kind_shift),
            field(self.slot_shift, self.frame_shift),
            field(self.port_shift, self.slot_shift)
        ))
    }
}
