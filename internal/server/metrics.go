package server

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tiergate/tiergate/internal/forge"
)

// Metrics holds the server's Prometheus metrics in a registry of their own, served on
// /metrics. It is made before the forge clients so that they can report their requests.
type Metrics struct {
	reg           *prometheus.Registry
	reviews       *prometheus.CounterVec
	duration      prometheus.Histogram
	depth         prometheus.Gauge
	forgeRequests *prometheus.CounterVec
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
	}
	m.reg.MustRegister(m.reviews, m.duration, m.depth, m.forgeRequests,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
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

func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

var _ forge.RequestObserver = (*Metrics)(nil).ForgeRequest
