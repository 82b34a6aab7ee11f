use super::*;
use crate::profile::commands::CliProfile;

const HUAWEI_CLI: &CliProfile = crate::profile::HUAWEI.cli;
const VSOL_GPON_CLI: &CliProfile = crate::profile::VSOL_GPON.cli;

#[test]
fn terminal_control_is_cleaned_and_cursor_moves_kept_for_the_erase() {
    assert_eq!(clean(b"a\r\nb\x1b[1;32mc\x00"), "a\nbc");
    assert_eq!(clean(b"x\x1b[3Dy"), "x\u{8}\u{8}\u{8}y");
    assert_eq!(erase(&clean(b"x\x1b[3Dy")), "xy");
}

#[test]
fn a_pager_erase_goes_whole_and_the_line_it_cut_goes_on() {
    // V-SOL: ` --More-- ` and a NUL in the middle of a line, then after the space the
    // client sends, 10 BS, 10 spaces, 10 BS, and the rest of the line.
    let mut pending = clean(b" key-encry --More-- \x00");
    assert_eq!(take_pager(&mut pending, VSOL_GPON_CLI.pager), Some(10));
    assert_eq!(pending, " key-encry");
    pending.push_str(&clean(
        b"\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08          \x08\x08\x08\x08\x08\x08\x08\x08\x08\x08ption aes\r\n",
    ));
    assert_eq!(erase(&pending), " key-encryption aes\n");
    // Huawei: `ESC[37D`, 37 spaces, `ESC[37D`, then the next page's first line.
    let mut page = String::from("---- More ( Press 'Q' to break ) ----");
    assert_eq!(take_pager(&mut page, HUAWEI_CLI.pager), Some(0));
    page.push_str(&clean(
        format!("\x1b[37D{}\x1b[37D  vlan 100 smart\r\n", " ".repeat(37)).as_bytes(),
    ));
    assert_eq!(erase(&page), "  vlan 100 smart\n");
}

#[test]
fn a_pager_with_the_share_shown_goes_whole() {
    // Eltex LTP: `--More--(45%)`; a `(` that is not a share stays.
    let mut page = String::from(" ont 3/5--More--(45%)");
    assert_eq!(take_pager(&mut page, "--More--"), Some(8));
    assert_eq!(page, " ont 3/5");
    let mut page = String::from("--More--(100%)(a)");
    take_pager(&mut page, "--More--");
    assert_eq!(page, "(a)");
    let mut page = String::from("--More--(1000%)");
    take_pager(&mut page, "--More--");
    assert_eq!(page, "(1000%)");
}

#[test]
fn huaweis_wait_lines_are_not_output() {
    let mut reply = Reply::new("display ont info 0 1 0 all", HUAWEI_CLI);
    reply.take("MA5680T# display ont info 0 1 0 all");
    reply.take("  Command is being executed. Please wait");
    reply.take("  F/S/P   ONT-ID");
    assert_eq!(reply.output, "  F/S/P   ONT-ID\n");
}

#[test]
fn an_unfinished_erase_waits_for_the_rest() {
    assert!(ends_in_erase("abc\u{8}\u{8}   "));
    assert!(ends_in_erase("\u{8}"));
    assert!(!ends_in_erase("host# "));
}

#[test]
fn prompts_are_known_by_their_shape() {
    assert_eq!(prompt_shape("OLT-1>"), Some(("OLT-1", false)));
    assert_eq!(prompt_shape("ZXAN#"), Some(("ZXAN", true)));
    assert_eq!(
        prompt_shape("RT_01|192.0.2.4-Site_OLT> "),
        Some(("RT_01|192.0.2.4-Site_OLT", false))
    );
    assert_eq!(prompt_shape("Welcome to <OLT>"), None);
    assert_eq!(prompt_shape("#"), None);
    assert!(asks_password("Password: "));
    assert!(!asks_password("Password: set"));
}

#[test]
fn lines_before_the_echo_and_syslog_lines_are_not_output() {
    let mut reply = Reply::new("show running-config", VSOL_GPON_CLI);
    reply.take("2026/05/25 18:50:59   User Login   User admin log in.");
    reply.take("RT_01|192.0.2.4-Site_OLT# ");
    reply.take("RT_01|192.0.2.4-Site_OLT# show running-config");
    reply.take("hostname RT_01");
    reply.take("2026/05/25 18:51:33   ONU Port Los   PON 0/3 ONU 98");
    reply.take(" interface gpon 0/1");
    assert!(reply.echoed);
    assert_eq!(reply.output, "hostname RT_01\n interface gpon 0/1\n");
    assert_eq!(
        reply.unsolicited.len(),
        3,
        "two alarms and a prompt printed again"
    );
}

proptest::proptest! {
    /// Whatever bytes a device sends, cleaning and erasing never panic and leave no
    /// carriage return, NUL, escape or cursor move; text without them passes unchanged.
    #[test]
    fn any_device_output_is_settled(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..512)) {
        let text = erase(&clean(&bytes));
        proptest::prop_assert!(!text.contains(['\r', '\u{8}', '\u{1b}', '\0']), "{:?}", text);
        let _ = prompt_shape(&text);
        let mut pending = text.clone();
        let _ = take_pager(&mut pending, " --More-- ");
        let mut reply = Reply::new("show running-config", VSOL_GPON_CLI);
        for line in text.lines() {
            reply.take(line);
        }
    }

    #[test]
    fn plain_output_is_kept(text in "[a-zA-Z0-9 #:/.\n-]{0,200}") {
        proptest::prop_assert_eq!(erase(&clean(text.as_bytes())), text);
    }
}
