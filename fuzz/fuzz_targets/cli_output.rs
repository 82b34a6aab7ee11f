//! Fuzz target: text an OLT's CLI prints, read by every vendor's templates and by the
//! running-configuration reader. Never a panic, whatever the device sends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ponkeeper_actors::domain::Vendor;
use ponkeeper_actors::profile::commands::{capture, service_vlans};
use ponkeeper_actors::profile::Profile;

fuzz_target!(|output: &[u8]| {
    let text = String::from_utf8_lossy(output);
    for vendor in Vendor::ALL {
        let profile = Profile::for_vendor(vendor);
        let _ = service_vlans(profile.cli, &text);
        for line in text.lines().take(64) {
            let _ = capture(profile.cli.vlan_line, line);
            if let Some(section) = profile.cli.onu_section {
                let _ = capture(section, line);
            }
        }
    }
});
