// Package server is tiergate as a service: it receives GitHub and Gitea/Forgejo webhooks,
// keeps the reviews they ask for in a durable queue (bbolt, <data-dir>/queue.db) and runs
// them with a bounded pool of workers, publishing each result to the forge.
//
// Invariants a change must keep:
//
//   - A forge's clone credentials go only to its own git host (Options.GitHost): a run whose
//     clone URL names another host ends in status error before anything is fetched.
//   - A delivery is verified before anything else, and stored (transaction committed)
//     before 202 is returned; a delivery id seen before is answered 200 and dropped, and so is
//     a /recheck comment seen before under another delivery id (the same hook on the
//     organisation and the repository): comment ids are kept as delivery ids are.
//   - Per PR at most one review runs, and the store holds one review job, the one delivered
//     last; it lists the heads of the jobs it replaced (job.Replaced). Deliveries come in any
//     order, so once a run has fetched it reviews only the newest of those heads by ancestry,
//     the forge's PR head winning where ancestry cannot tell (newestHead): an older job
//     hands itself back to the newer head (runner.giveWay) and sets no status on a head it
//     did not mark pending. A forge head with no delivery stored is queued by the run that
//     finds it; a head the PR's ref no longer reaches gives way to the forge's head. A
//     review of a head already stored is not stored again.
//   - A job for another head cancels the running review; that review publishes nothing of
//     its result, except a write to the PR it had started (summary comment, line comments,
//     check run): that write completes, detached from the cancellation with a grace of
//     finalTimeout (runner.writeContext), before the run ends, and the newer run of the PR starts only
//     after, so it finds what the write made. Once fetched it knows the order: a late (older) head gives the job back to
//     it, a newer one gets its head "superseded by <sha7>" at once; before the fetch the
//     newer job's run settles it. Every head whose run began gets a final status.
//   - A final status is final: a run records its head as final (queue.setFinal, then
//     store.markFinal) before it sets the head's success or failure; from then on no newer
//     head cancels the run, no shutdown cancels that status request (it runs detached,
//     bounded by finalTimeout), and no run sets a status on that head unless the forge
//     still shows it pending. Once its job finishes, the head is kept among the PR's final
//     heads (store.finishReviewed): a later delivery of it is answered "reviewed" and
//     stores nothing; only a /recheck reviews it again.
//   - A /recheck is a job of its own, stored under its comment, and never touches the PR's
//     review job: it may run while that review runs. A user without write access gets a
//     reply and nothing else; a writer's comment gets a +1, and a review of the PR's current
//     head is stored and queued exactly as a push's would be (unless a review was accepted
//     while it read that head: that one is as new).
//   - A run resumed (job.Started: an earlier run of its head began) publishes nothing twice:
//     it reads the head's status first (a final one: the job is done once the PR's head
//     read from the forge is this head, so that a newer push whose delivery was lost while
//     the server was down is still reviewed; if it replaced other heads, only once the
//     fetch shows that none of them is newer), and the forge's
//     reviews and check runs before it posts line comments or a check run. The summary
//     ends with the head's marker (forge.HeadMarker), so the same head's summary is not
//     written again; the bot's older summaries on the PR are deleted. A /recheck's
//     reply names the comment it answers (forge.ReplyMarker); a run after one that began
//     looks for it before replying.
//   - Comments of the bot's own account never run a /recheck, whatever the account's
//     permissions. Its login is learnt by one background learner (learnLogins), never by a
//     run: a /recheck whose login is unknown waits without a worker, uncounted, and is given
//     up after LoginRetry.GiveUp.
//   - A restart resumes every accepted job: a job leaves the store only once its run has
//     ended with the PR's final word (status success, failure or error) or, for a /recheck,
//     once the comment is answered and any review it asks for is stored. Shutdown cancels
//     running jobs and leaves them stored (heads stay pending until the restart runs them
//     again).
//   - A run always ends in a final status: status pending is set first and the final
//     status last (after the summary comment, line comments and check run, so branch
//     protection flips only once the comment is there); any failure, timeout included,
//     sets error with a one-line reason. A job that cannot get its word published is retried, and
//     given up after maxAttempts runs.
//   - A store that takes no write (a full disk) answers deliveries 503 and records nothing;
//     a job already accepted still runs, uncounted, to its final status. A job whose store
//     cannot be read waits storeRetryDelay and runs again: no job waits for a restart.
package server
