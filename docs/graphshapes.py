#!/usr/bin/env python3
# Writes a Flux repository of N Kustomizations in one dependsOn shape, for docs/performance.md
# "dependsOn graphs of any shape": gen DIR SHAPE N, SHAPE ring|chain|star|none; each
# Kustomization tNNNNN applies one ConfigMap from apps/tNNNNN. Measure with
#   python3 docs/graphshapes.py /tmp/g/base ring 4900 && cp -r /tmp/g/base /tmp/g/head &&
#   echo "# x" >> /tmp/g/head/apps/t00000/cm.yaml &&
#   /usr/bin/time -f "%M KiB %e s" bot review --base-dir /tmp/g/base --head-dir /tmp/g/head --format json >/dev/null
# (4,900 and not 5,000: the root build holds every manifest, MaxBuildDocuments is 5,000).
import os, sys
d, shape, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
def w(p, s):
    p = os.path.join(d, p); os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(s)
w("clusters/dev/flux-system/gotk-sync.yaml", """apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m0s
  ref:
    branch: main
  url: https://example.com/fleet.git
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m0s
  path: ./clusters/dev
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
""")
w("clusters/dev/flux-system/kustomization.yaml", "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - gotk-sync.yaml\n")
docs = []
for i in range(n):
    deps = []
    if shape == "ring": deps = [(i + 1) % n]
    elif shape == "chain": deps = [i - 1] if i > 0 else []
    elif shape == "star": deps = [0] if i > 0 else []
    dep = "" if not deps else "  dependsOn:\n" + "".join("    - name: t%05d\n" % j for j in deps)
    docs.append("""apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: t%05d
  namespace: flux-system
spec:
  interval: 10m
  path: ./apps/t%05d
  prune: true
%s  sourceRef:
    kind: GitRepository
    name: flux-system
""" % (i, i, dep))
    w("apps/t%05d/cm.yaml" % i, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c%05d\n  namespace: default\ndata:\n  k: v\n" % i)
w("clusters/dev/tiers.yaml", "---\n".join(docs))
