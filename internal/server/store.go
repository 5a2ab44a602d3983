package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/tiergate/tiergate/internal/forge"
)

var (
	// bucketDeliveries: "forge/delivery-id", and commentKey of each /recheck comment → RFC
	// 3339 time first seen.
	bucketDeliveries = []byte("deliveries")
	bucketJobs       = []byte("jobs")   // jobKey → the PR's newest review, recheckKey → a /recheck (JSON)
	bucketPosted     = []byte("posted") // jobKey → fingerprint of the last line comments posted
	// bucketForgeHeads: jobKey → the head a run queued because the forge named it (no
	// delivery of it had come); its delivery, if it comes, is a resumed job.
	bucketForgeHeads = []byte("forge-heads")
	// bucketFinalHeads: jobKey → the PR's heads whose review's final status (success or
	// failure) was published, newest last (finalHeads); a later delivery of one runs nothing.
	bucketFinalHeads = []byte("final-heads")
)

const (
	deliveryTTL   = 7 * 24 * time.Hour // forges redeliver within days, not weeks
	pruneInterval = time.Hour
	// maxFinalHeads bounds the heads kept per PR in bucketFinalHeads.
	maxFinalHeads = 16
)

// finalHeads is a PR's entry in bucketFinalHeads: the heads reviewed to their final status,
// newest last, and when the last was added (entries older than deliveryTTL are pruned).
type finalHeads struct {
	Heads []string  `json:"heads"`
	At    time.Time `json:"at"`
}

// jobKind is what a job asks for.
type jobKind string

const (
	kindReview  jobKind = "review"  // review the head of the delivery
	kindRecheck jobKind = "recheck" // a /recheck comment: check permission, then queue a review of the current head
)

// job is one accepted request: a PR's review (the store holds the newest per PR) or a
// /recheck comment (one per comment, apart from the PR's review).
type job struct {
	Event forge.Event `json:"event"`
	Kind  jobKind     `json:"kind"`
	// HeadSHA is the commit to review (review jobs); a recheck reads the PR's head when it runs.
	HeadSHA string `json:"head_sha,omitempty"`
	// Attempt counts the runs started, so that a job that kills the process is not retried forever.
	Attempt  int       `json:"attempt"`
	Enqueued time.Time `json:"enqueued"`
	// Seq tells a job from the one that replaced it while it ran.
	Seq uint64 `json:"seq"`
	// Started is set when a run of the job begins (or the job was queued from the forge):
	// the run reads back what an earlier one may have published before it publishes.
	Started bool `json:"started,omitempty"`
	// Pending: a run of this head started the request setting our pending status
	// (markPending), so the head needs a final word from the bot. A head without it gets
	// no status from a run that is not its review's. Always written: a job stored by a
	// version before it has no "pending" and is read as Pending if Started (UnmarshalJSON).
	Pending bool `json:"pending"`
	// Replaced are the heads of the PR's earlier review jobs that this one replaced before
	// they got a final word. Deliveries come in any order, so one of them may be newer (by
	// ancestry) than HeadSHA: the run decides once it has fetched (runner.newest).
	Replaced []replacedHead `json:"replaced,omitempty"`
	// Final: a run of this head began to publish its review's final status (success or
	// failure), so no run may mark the head superseded (markFinal).
	Final bool `json:"final,omitempty"`
	// FromForge: a run queued this head because the forge names it as the PR's head and no
	// delivery of it was stored (lost, or not come yet).
	FromForge bool `json:"from_forge,omitempty"`
}

// replacedHead is the head of a review job that a later job replaced.
type replacedHead struct {
	SHA string `json:"sha"`
	// Started: a run of it began (or it was queued from the forge): a job of the same head
	// taking it over is a resumed one.
	Started bool `json:"started,omitempty"`
	// Pending: a run of it started setting our pending status, so it needs a final status.
	// Always written; read as Started when absent (UnmarshalJSON).
	Pending bool `json:"pending"`
	// Final: a run of it began to publish its review's final status: no other run sets a
	// status on it unless the forge shows it still pending (runner.settleReplaced).
	Final bool `json:"final,omitempty"`
}

// UnmarshalJSON decodes a stored job. A job stored by a version before job.Pending has no
// "pending": there Started meant that the head may carry our pending status, so it is read
// as Pending when Started, and a head left pending across an upgrade still gets its final
// word. A stored "pending" is taken as it is.
func (j *job) UnmarshalJSON(data []byte) error {
	type plain job // without this method
	var v struct {
		plain
		Pending *bool `json:"pending"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*j = job(v.plain)
	j.Pending = pendingOr(v.Pending, j.Started)
	return nil
}

// UnmarshalJSON decodes a replaced head as job.UnmarshalJSON does: absent, Pending is Started.
func (r *replacedHead) UnmarshalJSON(data []byte) error {
	type plain replacedHead
	var v struct {
		plain
		Pending *bool `json:"pending"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*r = replacedHead(v.plain)
	r.Pending = pendingOr(v.Pending, r.Started)
	return nil
}

// pendingOr is *stored, or started when the field was not stored (an older version's job).
func pendingOr(stored *bool, started bool) bool {
	if stored == nil {
		return started
	}
	return *stored
}

// inherit makes j take over old, the review job it replaces: old's head and the heads old
// replaced are j's to settle, except j's own head.
func (j *job) inherit(old *job) {
	if j.Kind != kindReview || old.Kind != kindReview {
		return
	}
	heads := append(append([]replacedHead(nil), old.Replaced...), j.Replaced...)
	if old.HeadSHA != "" {
		heads = append(heads, replacedHead{SHA: old.HeadSHA, Started: old.Started, Pending: old.Pending, Final: old.Final})
	}
	j.takeOver(heads)
}

// takeOver makes heads j's replaced heads. Its own head among them makes j a resumed job
// if a run of it began: that run may have published part of the review.
func (j *job) takeOver(heads []replacedHead) {
	for _, h := range heads {
		j.Started = j.Started || h.SHA == j.HeadSHA && h.Started
		j.Pending = j.Pending || h.SHA == j.HeadSHA && h.Pending
		j.Final = j.Final || h.SHA == j.HeadSHA && h.Final
	}
	j.Replaced = mergeHeads(heads, j.HeadSHA)
}

// mergeHeads lists each sha of heads once, in first-seen order, Started (Pending, Final) if
// any entry is, without skip.
func mergeHeads(heads []replacedHead, skip string) []replacedHead {
	var out []replacedHead
	at := map[string]int{}
	for _, h := range heads {
		if h.SHA == skip {
			continue
		}
		if i, ok := at[h.SHA]; ok {
			out[i].Started = out[i].Started || h.Started
			out[i].Pending = out[i].Pending || h.Pending
			out[i].Final = out[i].Final || h.Final
			continue
		}
		at[h.SHA] = len(out)
		out = append(out, h)
	}
	return out
}

// jobKey names the PR of ev: at most one review job per key is stored, queued or running.
func jobKey(ev forge.Event) string {
	return fmt.Sprintf("%s/%s/%s/%d", ev.Forge, ev.Repo.Owner, ev.Repo.Name, ev.PR)
}

// commentKey is the entry in bucketDeliveries by which a /recheck comment, keyed recheckKey,
// is known as seen: kept, and pruned, as delivery ids are. Only a comment's creation runs a
// /recheck (forge.ParseGitHub, ParseGitea: action "created"), so its id alone names it.
func commentKey(recheckKey string) string { return "comment/" + recheckKey }

// recheckKey names the /recheck comment of ev. It is not a PR's key, so a recheck never
// replaces or joins the PR's review job.
func recheckKey(ev forge.Event) string {
	return fmt.Sprintf("%s/recheck/%d", jobKey(ev), ev.Comment.ID)
}

// store is the durable queue, a bbolt file.
type store struct {
	db        *bolt.DB
	lastPrune time.Time // read and written in write transactions only, which bbolt serialises
}

// lockTimeout is how long opening the queue waits for another process's lock on it.
const lockTimeout = time.Second

func openStore(path string) (*store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("data directory %s is in use by another tiergate process (%s is locked)",
			filepath.Dir(path), filepath.Base(path))
	}
	if err != nil {
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bucketDeliveries, bucketJobs, bucketPosted, bucketForgeHeads, bucketFinalHeads} {
			if _, err := tx.CreateBucketIfNotExists(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open queue %s: %w", path, err)
	}
	return &store{db: db}, nil
}

func (s *store) close() error { return s.db.Close() }

// posted reports whether the line comments with fingerprint fp were already posted for key.
func (s *store) posted(key, fp string) (bool, error) {
	same := false
	err := s.db.View(func(tx *bolt.Tx) error {
		same = string(tx.Bucket(bucketPosted).Get([]byte(key))) == fp
		return nil
	})
	return same, err
}

// markPosted records the fingerprint of the line comments just posted for key.
func (s *store) markPosted(key, fp string) error {
	return s.db.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketPosted).Put([]byte(key), []byte(fp)) })
}

// acceptance is what accept did with a delivery.
type acceptance int

const (
	accepted  acceptance = iota // j is stored, replacing the key's job
	duplicate                   // the delivery id, or the /recheck comment, was seen before: no job written
	known                       // a review job of the same head is stored: only the delivery id is recorded
	reviewed                    // the head's review published its final status already: only the delivery id is recorded
)

// accept records the delivery and stores j under key, replacing the job stored there (j
// inherits its heads), in one transaction; delivery "" records none. A /recheck comment
// accepted before (commentKey), under any delivery id, is a duplicate. A review job of the
// head already stored under key is not stored again (it would run the same review twice),
// nor one of a head whose review published its final status (finishReviewed): a late
// redelivery must neither review it again nor set it pending. It sets j.Seq.
func (s *store) accept(delivery, key string, j *job, now time.Time) (res acceptance, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		d := tx.Bucket(bucketDeliveries)
		if delivery != "" {
			if d.Get([]byte(delivery)) != nil {
				res = duplicate
				return nil
			}
			if now.Sub(s.lastPrune) >= pruneInterval {
				if err := prune(d, now.Add(-deliveryTTL)); err != nil {
					return err
				}
				if err := pruneFinalHeads(tx.Bucket(bucketFinalHeads), now.Add(-deliveryTTL)); err != nil {
					return err
				}
				s.lastPrune = now
			}
			if err := d.Put([]byte(delivery), []byte(now.UTC().Format(time.RFC3339))); err != nil {
				return err
			}
		}
		if j.Kind == kindRecheck && j.Event.Comment != nil {
			// One comment reaches the server once per hook that covers it (organisation
			// and repository), each delivery with its own id: the comment is run once.
			ck := []byte(commentKey(key))
			if d.Get(ck) != nil {
				res = duplicate
				return nil
			}
			if err := d.Put(ck, []byte(now.UTC().Format(time.RFC3339))); err != nil {
				return err
			}
		}
		if j.Kind == kindReview {
			fin, err := getFinalHeads(tx.Bucket(bucketFinalHeads), key)
			if err != nil {
				return err
			}
			if slices.Contains(fin.Heads, j.HeadSHA) {
				res = reviewed
				return nil
			}
			// A head a run queued from the forge may have been reviewed already: its late
			// delivery's run reads the head's status first, as a resumed one does.
			fh := tx.Bucket(bucketForgeHeads)
			if string(fh.Get([]byte(key))) == j.HeadSHA {
				j.Started = true
				if err := fh.Delete([]byte(key)); err != nil {
					return err
				}
			}
		}
		b := tx.Bucket(bucketJobs)
		old, err := getJob(b, key)
		if err != nil {
			return err
		}
		if old != nil {
			if j.Kind == kindReview && old.Kind == kindReview && old.HeadSHA == j.HeadSHA {
				res = known
				return nil
			}
			j.inherit(old)
		}
		seq, err := b.NextSequence()
		if err != nil {
			return err
		}
		j.Seq = seq
		return putJob(b, key, j)
	})
	if err != nil {
		return 0, fmt.Errorf("store job %s: %w", key, err)
	}
	return res, nil
}

// getJob reads key's job; nil when none is stored.
func getJob(b *bolt.Bucket, key string) (*job, error) {
	v := b.Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var j job
	if err := json.Unmarshal(v, &j); err != nil {
		return nil, fmt.Errorf("job %s: %w", key, err)
	}
	return &j, nil
}

// lastSeq is the sequence number of the job accepted last.
func (s *store) lastSeq() (seq uint64, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		seq = tx.Bucket(bucketJobs).Sequence()
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read queue: %w", err)
	}
	return seq, nil
}

// acceptUnlessNewer stores j under key as accept does (recording no delivery), unless the job
// stored there was accepted after seq; stored reports whether j was. A FromForge j's head
// is recorded, so that its delivery, when it comes, is accepted as a resumed job. j inherits the heads of
// the job it replaces unless that job is own: the one accepted at seq, whose heads the caller
// has given j already.
func (s *store) acceptUnlessNewer(key string, j *job, seq uint64, own bool) (stored bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		old, err := getJob(b, key)
		if err != nil {
			return err
		}
		if old != nil {
			if old.Seq > seq {
				return nil
			}
			if !own || old.Seq != seq {
				j.inherit(old)
			}
		}
		j.takeOver(j.Replaced)
		next, err := b.NextSequence()
		if err != nil {
			return err
		}
		if j.FromForge {
			if err := tx.Bucket(bucketForgeHeads).Put([]byte(key), []byte(j.HeadSHA)); err != nil {
				return err
			}
		}
		j.Seq, stored = next, true
		return putJob(b, key, j)
	})
	if err != nil {
		return false, fmt.Errorf("store job %s: %w", key, err)
	}
	return stored, nil
}

// prune deletes the deliveries first seen before cutoff (and any it cannot read).
func prune(d *bolt.Bucket, cutoff time.Time) error {
	return deleteWhere(d, func(v []byte) bool {
		t, err := time.Parse(time.RFC3339, string(v))
		return err != nil || t.Before(cutoff)
	})
}

// deleteWhere deletes the entries of b whose value old accepts.
func deleteWhere(b *bolt.Bucket, old func(v []byte) bool) error {
	var keys [][]byte
	err := b.ForEach(func(k, v []byte) error {
		if old(v) {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// jobs returns every stored job with its key, oldest first.
func (s *store) jobs() (keys []string, jobs []job, err error) {
	type entry struct {
		key string
		j   job
	}
	var all []entry
	err = s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketJobs).ForEach(func(k, v []byte) error {
			var j job
			if err := json.Unmarshal(v, &j); err != nil {
				return fmt.Errorf("job %s: %w", k, err)
			}
			all = append(all, entry{string(k), j})
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read queue: %w", err)
	}
	sort.SliceStable(all, func(a, b int) bool { return all[a].j.Enqueued.Before(all[b].j.Enqueued) })
	for _, e := range all {
		keys = append(keys, e.key)
		jobs = append(jobs, e.j)
	}
	return keys, jobs, nil
}

// begin counts a run of key's job, marks it started and returns it as it was before (Started
// tells whether an earlier run began); ok is false when none is stored.
func (s *store) begin(key string) (j job, ok bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		v := b.Get([]byte(key))
		if v == nil {
			return nil
		}
		if err := json.Unmarshal(v, &j); err != nil {
			return err
		}
		ok = true
		j.Attempt++
		started := j
		started.Started = true
		return putJob(b, key, &started)
	})
	if err != nil {
		return job{}, false, fmt.Errorf("start job %s: %w", key, err)
	}
	return j, ok, nil
}

// job returns key's job as begin does, without counting a run (it only reads).
func (s *store) job(key string) (j job, ok bool, err error) {
	err = s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketJobs).Get([]byte(key))
		if v == nil {
			return nil
		}
		ok = true
		return json.Unmarshal(v, &j)
	})
	if err != nil {
		return job{}, false, fmt.Errorf("read job %s: %w", key, err)
	}
	return j, ok, nil
}

// setAttempt rewrites the attempt count of key's job, unless a newer job replaced it.
func (s *store) setAttempt(key string, seq uint64, attempt int) error {
	return s.update(key, seq, func(b *bolt.Bucket, j *job) error {
		j.Attempt = attempt
		return putJob(b, key, j)
	})
}

// settle records that heads got their final word: key's stored job, whichever it is,
// keeps them only to tell which head is newest.
func (s *store) settle(key string, heads ...string) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		j, err := getJob(b, key)
		if err != nil || j == nil {
			return err
		}
		for i := range j.Replaced {
			if slices.Contains(heads, j.Replaced[i].SHA) {
				j.Replaced[i].Started, j.Replaced[i].Pending = false, false
			}
		}
		return putJob(b, key, j)
	})
	if err != nil {
		return fmt.Errorf("update job %s: %w", key, err)
	}
	return nil
}

// markPending records that the run of key's job seq is about to set head pending: in the
// job itself, or, when a newer job replaced it meanwhile, in that job's entry of head, so
// that whichever run settles head knows it needs a final status.
func (s *store) markPending(key string, seq uint64, head string) error {
	return s.markHead(key, seq, head, func(j *job) { j.Pending = true }, func(r *replacedHead) { r.Pending = true })
}

// markHead applies own to key's job if it is job seq of head, and entry to the job's
// entries of head.
func (s *store) markHead(key string, seq uint64, head string, own func(*job), entry func(*replacedHead)) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		j, err := getJob(b, key)
		if err != nil || j == nil {
			return err
		}
		if j.Seq == seq && j.HeadSHA == head {
			own(j)
		}
		for i := range j.Replaced {
			if j.Replaced[i].SHA == head {
				entry(&j.Replaced[i])
			}
		}
		return putJob(b, key, j)
	})
	if err != nil {
		return fmt.Errorf("update job %s: %w", key, err)
	}
	return nil
}

// markFinal records that the run of key's job seq is about to publish head's final status:
// in the job itself, or, when a newer job replaced it meanwhile, in that job's entry of
// head, so that the newer job's run does not mark head superseded.
func (s *store) markFinal(key string, seq uint64, head string) error {
	return s.markHead(key, seq, head, func(j *job) { j.Final = true }, func(r *replacedHead) { r.Final = true })
}

// reclaim stores j under key in place of the job stored there if that job reviews head
// (a delivery that came late): j inherits it. stored reports whether j was.
func (s *store) reclaim(key, head string, j *job) (stored bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		old, err := getJob(b, key)
		if err != nil || old == nil || old.Kind != kindReview || old.HeadSHA != head {
			return err
		}
		j.inherit(old)
		next, err := b.NextSequence()
		if err != nil {
			return err
		}
		j.Seq, stored = next, true
		return putJob(b, key, j)
	})
	if err != nil {
		return false, fmt.Errorf("store job %s: %w", key, err)
	}
	return stored, nil
}

// finishReviewed is finish for a job whose run ended with head's own final status
// (success or failure) on the forge: head is recorded among key's final heads, in the same
// transaction, whether or not a newer job replaced this one.
func (s *store) finishReviewed(key string, seq uint64, head string, now time.Time) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		fb := tx.Bucket(bucketFinalHeads)
		fin, err := getFinalHeads(fb, key)
		if err != nil {
			return err
		}
		fin.Heads = append(slices.DeleteFunc(fin.Heads, func(h string) bool { return h == head }), head)
		if len(fin.Heads) > maxFinalHeads {
			fin.Heads = fin.Heads[len(fin.Heads)-maxFinalHeads:]
		}
		fin.At = now.UTC()
		data, err := json.Marshal(fin)
		if err != nil {
			return err
		}
		if err := fb.Put([]byte(key), data); err != nil {
			return err
		}
		b := tx.Bucket(bucketJobs)
		j, err := getJob(b, key)
		if err != nil || j == nil || j.Seq != seq {
			return err
		}
		return b.Delete([]byte(key))
	})
	if err != nil {
		return fmt.Errorf("update job %s: %w", key, err)
	}
	return nil
}

// getFinalHeads reads key's entry of bucketFinalHeads (empty when there is none).
func getFinalHeads(b *bolt.Bucket, key string) (finalHeads, error) {
	var fin finalHeads
	v := b.Get([]byte(key))
	if v == nil {
		return fin, nil
	}
	if err := json.Unmarshal(v, &fin); err != nil {
		return fin, fmt.Errorf("final heads of %s: %w", key, err)
	}
	return fin, nil
}

// pruneFinalHeads deletes the entries last added before cutoff (and any it cannot read).
func pruneFinalHeads(b *bolt.Bucket, cutoff time.Time) error {
	return deleteWhere(b, func(v []byte) bool {
		var fin finalHeads
		return json.Unmarshal(v, &fin) != nil || fin.At.Before(cutoff)
	})
}

// finish deletes key's job, unless a newer job replaced it.
func (s *store) finish(key string, seq uint64) error {
	return s.update(key, seq, func(b *bolt.Bucket, _ *job) error { return b.Delete([]byte(key)) })
}

func (s *store) update(key string, seq uint64, fn func(*bolt.Bucket, *job) error) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketJobs)
		v := b.Get([]byte(key))
		if v == nil {
			return nil
		}
		var j job
		if err := json.Unmarshal(v, &j); err != nil {
			return err
		}
		if j.Seq != seq {
			return nil
		}
		return fn(b, &j)
	})
	if err != nil {
		return fmt.Errorf("update job %s: %w", key, err)
	}
	return nil
}

func putJob(b *bolt.Bucket, key string, j *job) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return b.Put([]byte(key), data)
}
