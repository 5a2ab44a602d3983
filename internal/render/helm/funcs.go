package helm

import (
	"bytes"
	"crypto"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"net"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
)

// Clock is the time now, date, ago and the certificate functions see: fixed, so that a
// render is a function of its inputs.
var Clock = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Caps on what one call of repeat, until, untilStep, seq, the random strings and indent
// may produce: larger calls fail the render instead of allocating without bound (Helm's
// engine has no limit).
const (
	maxIndent      = 1 << 10
	maxRepeatBytes = 1 << 20
	maxSeqItems    = 1 << 16
	maxRandBytes   = 1 << 16
)

// usage records the template functions a render called whose offline output may differ
// from the cluster's.
type usage struct{ used map[string]bool }

func (u *usage) mark(name string) {
	if u.used == nil {
		u.used = map[string]bool{}
	}
	u.used[name] = true
}

func (u *usage) names() []string { return slices.Sorted(maps.Keys(u.used)) }

// templateFuncs are the CustomTemplateFuncs (action.Configuration, copied over Helm's
// funcMap by engine.initFunMap) of one render: sprig's functions of time and chance made
// deterministic (fixed Clock, a ChaCha8 stream with a fixed seed, fixed or seeded keys),
// lookup returning {} as Helm's client-less engine does, and caps on the functions that
// allocate on demand. Each call of a nondeterministic function is recorded in u.
func templateFuncs(u *usage) template.FuncMap {
	rng := rand.New(rand.NewChaCha8([32]byte{'t', 'i', 'e', 'r', 'g', 'a', 't', 'e'}))
	sp := sprig.TxtFuncMap()
	f := template.FuncMap{
		// engine funcMap's client-less lookup.
		"lookup": func(string, string, string, string) (map[string]any, error) {
			u.mark("lookup")
			return map[string]any{}, nil
		},
		"now": func() time.Time { u.mark("now"); return Clock },
		"ago": func(date any) string {
			u.mark("ago")
			return Clock.Sub(toTime(date, u)).Round(time.Second).String()
		},
		"date":           func(layout string, date any) string { return toTime(date, u).UTC().Format(layout) },
		"htmlDate":       func(date any) string { return toTime(date, u).UTC().Format("2006-01-02") },
		"dateInZone":     dateInZone(u),
		"date_in_zone":   dateInZone(u),
		"htmlDateInZone": func(date any, zone string) string { return dateInZone(u)("2006-01-02", date, zone) },
		"durationRound": func(d any) string {
			if t, ok := d.(time.Time); ok {
				u.mark("durationRound")
				d = int64(Clock.Sub(t))
			}
			return sp["durationRound"].(func(any) string)(d)
		},
		"toDate": func(layout, s string) time.Time {
			t, _ := time.ParseInLocation(layout, s, time.UTC)
			return t
		},
		"mustToDate": func(layout, s string) (time.Time, error) { return time.ParseInLocation(layout, s, time.UTC) },

		"randAlphaNum": randString(u, rng, "randAlphaNum", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"),
		"randAlpha":    randString(u, rng, "randAlpha", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
		"randNumeric":  randString(u, rng, "randNumeric", "0123456789"),
		"randAscii":    randString(u, rng, "randAscii", asciiPrintable()),
		"randBytes": func(n int) (string, error) {
			u.mark("randBytes")
			b, err := randBuf(rng, n)
			return base64.StdEncoding.EncodeToString(b), err
		},
		"randInt": func(lo, hi int) (int, error) {
			u.mark("randInt")
			if hi <= lo {
				return 0, fmt.Errorf("randInt: max %d is not above min %d", hi, lo)
			}
			return rng.IntN(hi-lo) + lo, nil
		},
		"uuidv4": func() string {
			u.mark("uuidv4")
			b, _ := randBuf(rng, 16)
			b[6] = b[6]&0x0f | 0x40
			b[8] = b[8]&0x3f | 0x80
			return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
		},
		"shuffle": func(s string) string {
			u.mark("shuffle")
			r := []rune(s)
			rng.Shuffle(len(r), func(i, j int) { r[i], r[j] = r[j], r[i] })
			return string(r)
		},
		"bcrypt":     func(s string) string { u.mark("bcrypt"); return fakeBcrypt(s) },
		"htpasswd":   htpasswd(u),
		"encryptAES": encryptAES(u, rng),

		"genPrivateKey":            func(typ string) string { u.mark("genPrivateKey"); return genPrivateKey(rng, typ) },
		"genCA":                    certFunc(u, rng, "genCA"),
		"genCAWithKey":             certFunc(u, rng, "genCAWithKey"),
		"genSelfSignedCert":        certFunc(u, rng, "genSelfSignedCert"),
		"genSelfSignedCertWithKey": certFunc(u, rng, "genSelfSignedCertWithKey"),
		"genSignedCert":            certFunc(u, rng, "genSignedCert"),
		"genSignedCertWithKey":     certFunc(u, rng, "genSignedCertWithKey"),

		"repeat": func(count int, s string) (string, error) {
			if count > 0 && len(s) > 0 && count > maxRepeatBytes/len(s) {
				return "", fmt.Errorf("repeat: %d × %d bytes is over the %d-byte limit", count, len(s), maxRepeatBytes)
			}
			return strings.Repeat(s, max(count, 0)), nil
		},
		"indent": func(spaces int, v string) (string, error) {
			if spaces > maxIndent {
				return "", fmt.Errorf("indent of %d spaces is over the %d limit", spaces, maxIndent)
			}
			return sp["indent"].(func(int, string) string)(spaces, v), nil
		},
		"nindent": func(spaces int, v string) (string, error) {
			if spaces > maxIndent {
				return "", fmt.Errorf("nindent of %d spaces is over the %d limit", spaces, maxIndent)
			}
			return sp["nindent"].(func(int, string) string)(spaces, v), nil
		},
		"until": func(count int) ([]int, error) {
			step := 1
			if count < 0 {
				step = -1
			}
			if err := seqCap(0, count, step); err != nil {
				return nil, err
			}
			return sp["until"].(func(int) []int)(count), nil
		},
		"untilStep": func(start, stop, step int) ([]int, error) {
			if err := seqCap(start, stop, step); err != nil {
				return nil, err
			}
			return sp["untilStep"].(func(int, int, int) []int)(start, stop, step), nil
		},
		"seq": func(params ...int) (string, error) {
			// The untilStep call sprig's seq makes for these parameters.
			start, stop, step := 1, 1, 1
			switch len(params) {
			case 1:
				stop = params[0]
			case 2:
				start, stop = params[0], params[1]
			case 3:
				start, step, stop = params[0], params[1], params[2]
			}
			dir := 1
			if stop < start {
				dir = -1
			}
			if len(params) != 3 {
				step = dir
			}
			if err := seqCap(start, stop+dir, step); err != nil {
				return "", err
			}
			return sp["seq"].(func(...int) string)(params...), nil
		},
	}
	return f
}

// seqCap fails sprig's untilStep(start, stop, step) when it would make more than
// maxSeqItems items (it makes none when step points away from stop).
func seqCap(start, stop, step int) error {
	d := int64(stop) - int64(start)
	if step == 0 || d == 0 || (d > 0) != (step > 0) {
		return nil
	}
	n := d / int64(step)
	if n > maxSeqItems {
		return fmt.Errorf("sequence of %d items is over the %d-item limit", n, maxSeqItems)
	}
	return nil
}

// toTime is sprig's date argument: a time, or Unix seconds; anything else is now.
func toTime(date any, u *usage) time.Time {
	switch d := date.(type) {
	case time.Time:
		return d
	case *time.Time:
		return *d
	case int64:
		return time.Unix(d, 0)
	case int:
		return time.Unix(int64(d), 0)
	case int32:
		return time.Unix(int64(d), 0)
	}
	u.mark("now")
	return Clock
}

func dateInZone(u *usage) func(layout string, date any, zone string) string {
	return func(layout string, date any, zone string) string {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			loc = time.UTC
		}
		return toTime(date, u).In(loc).Format(layout)
	}
}

func randBuf(rng *rand.Rand, n int) ([]byte, error) {
	if n < 0 || n > maxRandBytes {
		return nil, fmt.Errorf("random string of %d bytes is over the %d-byte limit", n, maxRandBytes)
	}
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b, nil
}

func randString(u *usage, rng *rand.Rand, name, alphabet string) func(int) (string, error) {
	return func(n int) (string, error) {
		u.mark(name)
		if n < 0 || n > maxRandBytes {
			return "", fmt.Errorf("%s: %d characters is over the %d limit", name, n, maxRandBytes)
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b), nil
	}
}

func asciiPrintable() string {
	var b strings.Builder
	for c := byte(32); c < 127; c++ {
		b.WriteByte(c)
	}
	return b.String()
}

// fakeBcrypt has bcrypt's shape ($2a$10$, 53 characters) but is a plain digest: bcrypt's
// salt is random, so no offline value can equal the cluster's, and hashing costs ~50 ms.
func fakeBcrypt(s string) string {
	const alphabet = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	sum := sha256.Sum256([]byte("bcrypt:" + s))
	enc := base64.NewEncoding(alphabet).WithPadding(base64.NoPadding).EncodeToString(append(sum[:], sum[:8]...))
	return "$2a$10$" + enc[:53]
}

func htpasswd(u *usage) func(user, password string) string {
	return func(user, password string) string {
		u.mark("htpasswd")
		if strings.Contains(user, ":") {
			return fmt.Sprintf("invalid username: %s", user)
		}
		return user + ":" + fakeBcrypt(password)
	}
}

// encryptAES is sprig's (AES-256-CBC, key = password zero-padded to 32 bytes, PKCS#7
// padding, IV prepended, base64) with the IV drawn from the seeded stream.
func encryptAES(u *usage, rng *rand.Rand) func(password, text string) (string, error) {
	return func(password, text string) (string, error) {
		u.mark("encryptAES")
		key := make([]byte, 32)
		copy(key, password)
		block, err := aes.NewCipher(key)
		if err != nil {
			return "", err
		}
		pad := aes.BlockSize - len(text)%aes.BlockSize
		plain := append([]byte(text), bytes.Repeat([]byte{byte(pad)}, pad)...)
		out := make([]byte, aes.BlockSize+len(plain))
		iv, _ := randBuf(rng, aes.BlockSize)
		copy(out, iv)
		cipher.NewCBCEncrypter(block, iv).CryptBlocks(out[aes.BlockSize:], plain)
		return base64.StdEncoding.EncodeToString(out), nil
	}
}

// genPrivateKey is sprig's: rsa and dsa get the fixed keys, ecdsa (P-256) and ed25519 keys
// derived from the seeded stream, in sprig's PEM blocks.
func genPrivateKey(rng *rand.Rand, typ string) string {
	switch typ {
	case "", "rsa":
		return fixedRSA4096Key
	case "dsa":
		return fixedDSAKey
	}
	key, err := seededKey(rng, typ)
	if err != nil {
		return err.Error()
	}
	return string(pem.EncodeToMemory(pemBlock(key)))
}

func seededKey(rng *rand.Rand, typ string) (crypto.Signer, error) {
	seed, _ := randBuf(rng, 32)
	switch typ {
	case "rsa":
		block, _ := pem.Decode([]byte(fixedRSAKey))
		return x509.ParsePKCS1PrivateKey(block.Bytes)
	case "ecdsa":
		// A uniformly drawn scalar is below P-256's order but for ~2^-32 of draws.
		seed[0] &= 0x7f
		return ecdsa.ParseRawPrivateKey(elliptic.P256(), seed)
	case "ed25519":
		return ed25519.NewKeyFromSeed(seed), nil
	}
	return nil, fmt.Errorf("Unknown type %s", typ)
}

func pemBlock(key crypto.Signer) *pem.Block {
	switch k := key.(type) {
	case *rsa.PrivateKey:
		return &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}
	case *ecdsa.PrivateKey:
		b, _ := x509.MarshalECPrivateKey(k)
		return &pem.Block{Type: "EC PRIVATE KEY", Bytes: b}
	}
	b, _ := x509.MarshalPKCS8PrivateKey(key)
	return &pem.Block{Type: "PRIVATE KEY", Bytes: b}
}

// certificate is sprig's result of the gen*Cert functions; templates read .Cert and .Key.
type certificate struct{ Cert, Key string }

// certFunc is one of sprig's certificate functions, signed with the fixed RSA key (or the
// PEM key given) at Clock, with a serial number from the seeded stream. Arguments follow
// sprig: genCA(cn, days), genSelfSignedCert(cn, ips, dns, days), genSignedCert(cn, ips,
// dns, days, ca); the WithKey forms add a PEM key last.
func certFunc(u *usage, rng *rand.Rand, name string) any {
	withKey := strings.HasSuffix(name, "WithKey")
	keyOf := func(args []any) (crypto.Signer, error) {
		if !withKey {
			return seededKey(rng, "rsa")
		}
		s, _ := args[len(args)-1].(string)
		return parseKey(s)
	}
	issue := func(cn string, ips, dns []any, days int, isCA bool, ca *certificate, key crypto.Signer) (certificate, error) {
		u.mark(name)
		serial := new(big.Int).SetUint64(rng.Uint64())
		tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
			NotBefore: Clock, NotAfter: Clock.Add(time.Duration(days) * 24 * time.Hour),
			KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature,
			ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
			BasicConstraintsValid: true}
		if isCA {
			tmpl.IsCA, tmpl.KeyUsage = true, tmpl.KeyUsage|x509.KeyUsageCertSign
		}
		for _, ip := range ips {
			s, _ := ip.(string)
			parsed := net.ParseIP(s)
			if parsed == nil {
				return certificate{}, fmt.Errorf("error parsing ip: %v", ip)
			}
			tmpl.IPAddresses = append(tmpl.IPAddresses, parsed)
		}
		for _, d := range dns {
			s, ok := d.(string)
			if !ok {
				return certificate{}, fmt.Errorf("error processing alternate dns name: %v", d)
			}
			tmpl.DNSNames = append(tmpl.DNSNames, s)
		}
		parent, signer := tmpl, key
		if ca != nil {
			block, _ := pem.Decode([]byte(ca.Cert))
			if block == nil {
				return certificate{}, errors.New("error decoding certificate: no PEM data")
			}
			p, err := x509.ParseCertificate(block.Bytes)
			if err != nil {
				return certificate{}, fmt.Errorf("error parsing certificate: %w", err)
			}
			if signer, err = parseKey(ca.Key); err != nil {
				return certificate{}, err
			}
			parent = p
		}
		der, err := x509.CreateCertificate(nil, tmpl, parent, key.Public(), signer)
		if err != nil {
			return certificate{}, err
		}
		return certificate{Cert: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
			Key: string(pem.EncodeToMemory(pemBlock(key)))}, nil
	}
	switch strings.TrimSuffix(name, "WithKey") {
	case "genCA":
		return func(cn string, days int, rest ...string) (certificate, error) {
			key, err := keyOf(anys(rest))
			if err != nil {
				return certificate{}, err
			}
			return issue(cn, nil, nil, days, true, nil, key)
		}
	case "genSelfSignedCert":
		return func(cn string, ips, dns []any, days int, rest ...string) (certificate, error) {
			key, err := keyOf(anys(rest))
			if err != nil {
				return certificate{}, err
			}
			return issue(cn, ips, dns, days, false, nil, key)
		}
	}
	return func(cn string, ips, dns []any, days int, ca certificate, rest ...string) (certificate, error) {
		key, err := keyOf(anys(rest))
		if err != nil {
			return certificate{}, err
		}
		return issue(cn, ips, dns, days, false, &ca, key)
	}
}

func anys(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func parseKey(s string) (crypto.Signer, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errors.New("no PEM data in input")
	}
	var key any
	var err error
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("error decoding PEM key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("key of type %T cannot sign", key)
	}
	return signer, nil
}
