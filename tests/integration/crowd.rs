//! Names that would forge lines in line-based exports (issue 32, section 4), over real TCP:
//! names with control characters are refused at the handshake.

use crate::common;

use common::{RawClient, TestServer};

/// A NAME holding a control character, a line or paragraph separator, or a bidirectional
/// text control is refused at the handshake with an error that names the character and where
/// it is (without sending it back); the handshake goes on, and a good name is seated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn names_with_control_characters_are_refused_at_the_handshake() {
    let mut server = TestServer::start("traditional-2x4", "").await;
    let addr = server.addr();
    let mut a = RawClient::connect(&addr).await;
    assert_eq!(a.line().await, "((version 1.0))");
    for (init, refusal) in [
        (
            "(init \"bot\\nresult: 1-0\" 1)",
            "U+000A (a line break), found at character 4",
        ),
        (
            "(init \"bot\\x0d;\" 1)",
            "U+000D (a line break), found at character 4",
        ),
        (
            "(init \"a\u{2028}b\" 1)",
            "U+2028 (a line break), found at character 2",
        ),
        (
            "(init \"\\x1b;[31mred\" 1)",
            "U+001B (a control character), found at character 1",
        ),
        (
            "(init \"tab\\tbed\" 1)",
            "U+0009 (a control character), found at character 4",
        ),
        (
            "(init \"evil\u{202E}gnp.exe\" 1)",
            "U+202E (a bidirectional text control), found at character 5",
        ),
        (
            "(init al\u{200B}ice 1)",
            "U+200B (an invisible formatting character), found at character 3",
        ),
    ] {
        a.send(&format!("({init})\n")).await;
        assert_eq!(
            a.line().await,
            format!("((error syntax \"a NAME may not hold {refusal}: names are written into line-based records and exports; send one of printable characters\"))"),
            "{init}"
        );
    }
    a.send("((init \"good name\" 1))\n").await;
    let mut b = RawClient::join(&addr, "b", "2").await;
    assert!(a.line().await.starts_with("((id 1)"));
    assert!(b.line().await.starts_with("((id 2)"));
    a.until("(turn 0 1)").await;
    a.send("((resign))\n").await;
    assert_eq!(a.line().await, "((win 2 0))");
    let r = server.next_record().await;
    assert_eq!(r.players[0].name, "good name");
    server.stop().await;
}
