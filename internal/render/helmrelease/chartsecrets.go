package helmrelease

import (
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"slices"

	"helm.sh/helm/v4/pkg/chart/common"
	chart "helm.sh/helm/v4/pkg/chart/v2"
)

// SecretFilesNote is the graph.Release.Approximate entry of a release whose chart holds,
// outside its templates, a file with a Secret value (Placeholders.ChartFiles).
const SecretFilesNote = "Secret values in chart files replaced by placeholders"

// UnmaskedFilesNote is the graph.Release.Approximate entry of a release whose chart holds,
// in a file a template can read, outside a Secret document or generator source, a Secret value
// too short or too common a word to replace wherever it stands (FileSecrets.Unmasked).
const UnmaskedFilesNote = "a chart file holds a Secret value of under 4 bytes or that is a common word, as written (replacing it wherever it stands would cut ordinary text): a template printing that file may show it"

// FileSecrets is what ChartFiles did to a chart's files.
type FileSecrets struct {
	// Replaced is true when a file was rewritten.
	Replaced bool
	// Digest names the rewritten files, their names and bytes (32 hex digits of SHA-256;
	// "" when none was): the chart's render cache key holds it, since what a file is
	// rewritten to depends on the cluster's Secrets as well as on the chart.
	Digest string
	// Unmasked is true when a Secret value under graph.MinValueBytes or word-shaped
	// (graph.WordShaped) stands as a token in a file a template can read (templateReads)
	// after the rewrite: it is replaced only
	// at its positions, in a Secret document or a generator source (UnmaskedFilesNote).
	Unmasked bool
	// Templates is true when a template's text was rewritten (SecretTemplatesNote).
	Templates bool
}

// ChartFiles returns ch with every file templates read through .Files (chart.Chart.Files:
// what Helm's loader does not take for a template, Chart.yaml, values or a subchart,
// pkg/chart/v2/loader/load.go LoadFiles; the engine gives them to templates as .Files,
// pkg/engine/engine.go allTemplates, files.go newFiles; crds/ files included, subcharts'
// too) rewritten so that a template printing a file, or a transformation of it (b64enc,
// upper, AsConfig, AsSecrets, fromYaml), prints placeholders (Text) and no Secret value:
//
//   - at their positions (chartdocs.go): the data (base64 of the placeholder) and
//     stringData values of each Secret document, in a List or any *List's items too (as
//     kustomize expands them), with its sops: block and the copies of its values in its
//     own labels and annotations (a last-applied-configuration's JSON read as an object);
//     a chart-local secretGenerator's literals, and the files and env file values it reads;
//   - by value, wherever they stand in any file (chartmask.go): secrets (the values of
//     the cluster's Secrets, graph.SecretDataValues of every Secret the graph renders) and
//     the values found at those positions, each in every graph.AllForms form, the form of
//     its placeholder in its place, except values under graph.MinValueBytes and
//     word-shaped ones (FileSecrets.Unmasked says when one is left standing).
//
// The chart's templates, values, values.schema.json and Chart.yaml are rewritten by value
// too, whatever the templates read (chartParts): a chart folder may also be a
// Kustomization's path, whose Secret manifests are then chart templates or values.
// Only the files a template can read are rewritten (templateReads: a literal .Files.Get,
// GetBytes, Lines or Glob names them, anything else reads every file). The values at the
// positions of a file no template reads still count by value in the files read.
// A file holding no value is left as it is (the same *common.File); ch itself is never
// changed (charts are shared, ChartMemo): the result is a shallow copy, ch when nothing
// was rewritten.
func (p Placeholders) ChartFiles(ch *chart.Chart, secrets []string) (*chart.Chart, FileSecrets) {
	if ch == nil {
		return ch, FileSecrets{}
	}
	reads := templateReads(ch)
	values := slices.Clone(secrets)
	pos := map[*common.File][]byte{} // each file read with the values at known positions replaced
	eachChart(ch, func(c *chart.Chart) {
		if reads.none() {
			return // no template reads a file: only the other parts hold values (chartParts)
		}
		roles := generatorRoles(c)
		for _, f := range c.Files {
			data, vals := p.positional(f.Name, f.Data, roles[f.Name])
			if reads.reads(f.Name) {
				pos[f] = data
			}
			values = append(values, vals...) // an unread file's values may stand in a read one
		}
	})
	m := p.newFileMask(values)
	sum := sha256.New()
	var fs FileSecrets
	out := p.rewriteChart(ch, pos, m, "", sum, &fs)
	if fs.Replaced {
		fs.Digest = hex.EncodeToString(sum.Sum(nil))[:32]
	}
	return out, fs
}

// eachChart calls fn for ch and each of its subcharts, depth first.
func eachChart(ch *chart.Chart, fn func(*chart.Chart)) {
	fn(ch)
	for _, d := range ch.Dependencies() {
		eachChart(d, fn)
	}
}

// rewriteChart is ChartFiles for ch: each file as pos holds it with the values of m
// replaced; the files rewritten are named under prefix in sum, and fs collects what it did.
func (p Placeholders) rewriteChart(ch *chart.Chart, pos map[*common.File][]byte, m *fileMask, prefix string, sum hash.Hash, fs *FileSecrets) *chart.Chart {
	var files []*common.File
	for i, f := range ch.Files {
		at, read := pos[f]
		if !read {
			continue // no template reads it (templateReads)
		}
		data := m.replace(at)
		fs.Unmasked = fs.Unmasked || m.unmasked(data)
		if string(data) == string(f.Data) {
			continue
		}
		if files == nil {
			files = append(files, ch.Files...)
		}
		nf := *f
		nf.Data = data
		files[i] = &nf
		fs.Replaced = true
		writePart(sum, prefix+f.Name, data)
	}
	parts := *ch
	changed, templates := m.chartParts(ch, &parts, prefix, sum)
	fs.Replaced = fs.Replaced || changed
	fs.Templates = fs.Templates || templates
	deps := ch.Dependencies()
	var newDeps []*chart.Chart
	for i, d := range deps {
		nd := p.rewriteChart(d, pos, m, prefix+"charts/"+d.Name()+"/", sum, fs)
		if nd == d {
			continue
		}
		if newDeps == nil {
			// Copies of all: SetDependencies sets each one's parent, and the charts are shared.
			for _, e := range deps {
				cp := *e
				newDeps = append(newDeps, &cp)
			}
		}
		newDeps[i] = nd
	}
	if files == nil && newDeps == nil && !changed {
		return ch
	}
	c := parts
	if files != nil {
		c.Files = files
	}
	if newDeps != nil {
		c.SetDependencies(newDeps...)
	}
	return &c
}
