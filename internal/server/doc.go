// Package server is tiergate as a service: it receives GitHub and Gitea/Forgejo webhooks,
// keeps the reviews they ask for in a durable queue (bbolt, <data-dir>/queue.db) and runs
// them with a bounded pool of workers, publishing each result to the forge.
//
// Invariants a change must keep:
//
//   - A delivery is verified before anything else, and stored (transaction committed)
//     before 202 is returned; a delivery id seen before is answered 200 and dropped.
//   - Per PR at most one review runs, and the store holds only the PR's newest job. A job
//     for another head cancels the running review; that review publishes nothing of its
//     result, and sets its head's status to error "superseded by <sha7>" only if it had
//     set pending there, so no commit is left pending.
//   - A /recheck that arrives while a review of the PR waits or runs is merged into that
//     review's job: the comment is answered, and a refusal does not drop the review.
//   - A restart resumes every accepted job: a job leaves the store only once its run has
//     ended with the PR's final word (status success, failure or error, or a reply to a
//     refused /recheck). Shutdown cancels running reviews and leaves their jobs stored (their
//     heads stay pending until the restart runs them again).
//   - A run always ends in a final status: status pending is set first and the final
//     status last (after the summary comment and line comments, so branch protection
//     flips only once the comment is there); any failure, timeout included, sets error
//     with a one-line reason. A job that cannot get its word published is retried, and
//     given up after maxAttempts runs.
package server
