package server

import (
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/render"
)

// Metrics holds the server's Prometheus metrics in a registry of their own, served on
// /metrics. It is made before the forge clients so that they can report their requests.
type Metrics struct {
	reg           *prometheus.Registry
	reviews       *prometheus.CounterVec
	duration      prometheus.Histogram
	depth         prometheus.Gauge
	forgeRequests *prometheus.CounterVec
	phases        *prometheus.HistogramVec
	cache         atomic.Pointer[render.Cache]
}

// review results, the values of tiergate_reviews_total{result}.
const (
	resultSuccess    = "success"
	resultFailure    = "failure"
	resultError      = "error"
	resultSuperseded = "superseded"
)

// NewMetrics makes the metrics and their registry (with the Go and process collectors).
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		reviews: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tiergate_reviews_total",
			Help: "Reviews that ended, by result: success, failure (findings at or above fail-on), error, superseded.",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "tiergate_review_duration_seconds",
			Help:    "Time from a worker taking a job to its final status.",
			Buckets: prometheus.ExponentialBuckets(0.5, 2, 12), // 0.5s .. 17m
		}),
		depth: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tiergate_queue_depth",
			Help: "Accepted jobs waiting for a worker.",
		}),
		forgeRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tiergate_forge_requests_total",
			Help: "Forge API responses by forge and HTTP status (\"error\": no response).",
		}, []string{"forge", "status"}),
		phases: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "tiergate_review_phase_seconds",
			Help:    "Time of one phase of a review: fetch, checkout, render_base, render_head, diff, rules, publish.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16), // 10ms .. 5.5m
		}, []string{"phase"}),
	}
	m.reg.MustRegister(m.reviews, m.duration, m.depth, m.forgeRequests, m.phases,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.cacheMetrics()...)
	for _, r := range []string{resultSuccess, resultFailure, resultError, resultSuperseded} {
		m.reviews.WithLabelValues(r)
	}
	return m
}

// ForgeRequest counts one forge API request; status is the HTTP status, 0 when no response
// came. It is a forge.RequestObserver.
func (m *Metrics) ForgeRequest(kind forge.Kind, _ string, status int) {
	s := "error"
	if status > 0 {
		s = strconv.Itoa(status)
	}
	m.forgeRequests.WithLabelValues(string(kind), s).Inc()
}

// observePhases records a review's phase timings (seconds, by phase name).
func (m *Metrics) observePhases(timings map[string]float64) {
	for phase, sec := range timings {
		m.phases.WithLabelValues(phase).Observe(sec)
	}
}

// watchCache makes the build cache metrics report c.
func (m *Metrics) watchCache(c *render.Cache) { m.cache.Store(c) }

// cacheMetrics exports the build cache's counters and size, read at each scrape.
func (m *Metrics) cacheMetrics() []prometheus.Collector {
	stat := func(f func(render.CacheStats) int64) func() float64 {
		return func() float64 {
			if c := m.cache.Load(); c != nil {
				return float64(f(c.Stats()))
			}
			return 0
		}
	}
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tiergate_build_cache_hits_total",
			Help: "Kustomization builds reused from the build cache.",
		}, stat(func(s render.CacheStats) int64 { return s.Hits })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tiergate_build_cache_misses_total",
			Help: "Kustomization builds run because the cache held none with the same inputs.",
		}, stat(func(s render.CacheStats) int64 { return s.Misses })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "tiergate_build_cache_evictions_total",
			Help: "Builds dropped from the cache to stay within its size.",
		}, stat(func(s render.CacheStats) int64 { return s.Evictions })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "tiergate_build_cache_bytes",
			Help: "Estimated memory held by the build cache.",
		}, stat(func(s render.CacheStats) int64 { return s.Bytes })),
	}
}

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

var _ forge.RequestObserver = (*Metrics)(nil).ForgeRequest
