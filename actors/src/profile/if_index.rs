//! Port ifIndexes that spell their port: Huawei packs `frame/slot/port` into a GPON
//! port's ifIndex, so a port IF-MIB does not list can still be named from the ONU rows'
//! index. The layout is data on the profile ([`super::Profile::port_if_index`]); the
//! poller decodes with it and the simulator encodes with it.

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

/// Huawei's GPON port: `(125 << 25) | (frame << 19) | (slot << 13) | (port << 8)`.
pub const HUAWEI_GPON: IfIndexLayout = IfIndexLayout {
    kind: 125,
    kind_shift: 25,
    frame_shift: 19,
    slot_shift: 13,
    port_shift: 8,
};

/// ZTE C600 / C620 GPON port (`gpon_olt-1/1/1` = 285278465):
/// `(1 << 28) | (1 << 24) | (shelf << 16) | (slot << 8) | port`, as the LibreNMS C620
/// captures number them.
pub const ZTE_C600_GPON: IfIndexLayout = IfIndexLayout {
    kind: 0x11,
    kind_shift: 24,
    frame_shift: 16,
    slot_shift: 8,
    port_shift: 0,
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zte_c600_ports_match_the_c620_capture() {
        assert_eq!(ZTE_C600_GPON.if_index(1, 1, 1), Some(285_278_465));
        assert_eq!(ZTE_C600_GPON.if_index(1, 1, 16), Some(285_278_480));
        assert_eq!(
            ZTE_C600_GPON.port_name(285_278_480).as_deref(),
            Some("1/1/16")
        );
        // xgei-1/4/1 is numbered alike: a port name, but IF-MIB's ifType tells it apart.
        assert_eq!(
            ZTE_C600_GPON.port_name(285_279_233).as_deref(),
            Some("1/4/1")
        );
        assert_eq!(ZTE_C600_GPON.port_name(721_420_289), None, "not kind 0x11");
    }

    #[test]
    fn huawei_gpon_ports_round_trip() {
        assert_eq!(HUAWEI_GPON.if_index(0, 1, 0), Some(4_194_312_192));
        assert_eq!(HUAWEI_GPON.if_index(0, 0, 1), Some(4_194_304_256));
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_312_448).as_deref(),
            Some("0/1/1")
        );
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_320_640).as_deref(),
            Some("0/2/1")
        );
        assert_eq!(
            HUAWEI_GPON.port_name(4_194_304_000).as_deref(),
            Some("0/0/0")
        );
        for frame in 0..2 {
            for slot in 0..22 {
                for port in 0..16 {
                    let index = HUAWEI_GPON.if_index(frame, slot, port).expect("fits");
                    let name = HUAWEI_GPON.port_name(index);
                    assert_eq!(name, Some(format!("{frame}/{slot}/{port}")));
                }
            }
        }
        assert_eq!(HUAWEI_GPON.if_index(0, 0, 32), None, "port has 5 bits");
        assert_eq!(HUAWEI_GPON.port_name(5), None, "not a GPON port");
        assert_eq!(HUAWEI_GPON.port_name(4_194_312_193), None, "low bits set");
        // An EPON port (type 126) is not a GPON one.
        assert_eq!(HUAWEI_GPON.port_name(126 << 25), None);
    }
}
