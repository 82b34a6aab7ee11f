use super::*;
use ractor::RpcReplyPort;
use tokio::sync::oneshot;

fn waiter() -> (
    PollReply,
    oneshot::Receiver<Result<OltSummary, ActionError>>,
) {
    let (send, receive) = oneshot::channel();
    (RpcReplyPort::from(send), receive)
}

fn ended() -> ActionError {
    ActionError::Unavailable("the poll ended".into())
}

/// A poll-now asked while a poll runs is not answered by that poll, which read the
/// device before the request, but by the next; one asked with no poll running is
/// answered by the poll it starts.
#[tokio::test]
async fn a_wait_asked_during_a_poll_is_answered_by_the_next() {
    let mut cycle = PollCycle::new();
    let (generation, _, _) = cycle.begin();
    cycle.running(generation, tokio::spawn(async {}));
    let (during, mut answered_during) = waiter();
    cycle.asked_during_flight();
    cycle.wait(during);
    assert!(cycle.waits_for_next());
    cycle.finish(generation, None, None);
    cycle.answer_waiters(Err(ended()));
    assert!(
        answered_during.try_recv().is_err(),
        "answered by the poll in flight"
    );

    let (generation, _, _) = cycle.begin();
    cycle.running(generation, tokio::spawn(async {}));
    let (fresh, mut answered_fresh) = waiter();
    cycle.wait(fresh);
    assert!(!cycle.waits_for_next());
    cycle.finish(generation, None, None);
    cycle.answer_waiters(Err(ended()));
    assert!(
        answered_during.try_recv().is_ok(),
        "the next poll answers it"
    );
    assert!(answered_fresh.try_recv().is_ok());
}
