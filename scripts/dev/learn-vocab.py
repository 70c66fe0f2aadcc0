#!/usr/bin/env python3
"""Learns the fallback classifier's vocabulary from the knowledge base.

Every rule (rules/*.rules) and catalogue row (rules/catalog/*.tsv) is a
labelled document: a category, example log lines and a title. This script
tokenises them as src/kb/kb_fallback.c tokenises a failing line, scores each
word per category by smoothed log-odds (how much likelier a rule of that
category uses it than a rule of another), and writes the best words as
`[vocab.CATEGORY] token = WEIGHT WORD...` lines (whole-token entries) to
rules/classifier-learned.rules from rules/ only. --cv also reads the dev half
of tests/corpus (even ids whose split is dev; the check half is never
opened) to measure how the vocabulary generalises to real logs, and whether
their failure lines would help as training documents (on the corpus of
December 2026 they did not: 157/371 either way). Standard library only.

  scripts/dev/learn-vocab.py            rewrite rules/classifier-learned.rules
  scripts/dev/learn-vocab.py --out F    write F instead
  scripts/dev/learn-vocab.py --check    exit 1 when the committed file is stale
  scripts/dev/learn-vocab.py --eval     held-out accuracy on rule examples
  scripts/dev/learn-vocab.py --cv       2-fold cross-validation over dev ids
"""
import argparse
import math
import os
import random
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_NAME = "classifier-learned.rules"
HAND_NAME = "classifier.rules"

# Category order breaks ties, as in kb_fallback.c.
CATEGORIES = ["env-not-loaded", "version-mismatch", "no-device", "unsupported-op", "device-oom", "host-oom",
              "distributed", "numerics", "device-fault", "cpu-fallback", "input-bound", "hang", "config"]

# Words every category's lines use: they carry no signal, and leaving them
# out keeps the file short. The last line is the frame of every ACL error
# line (Calling Function = ..., Message = "... refer to the document").
STOP = set("""
a an and are as at be been but by can could did do does for from had has have he her his how if in into is it
its may more must no not of on or our out so such than that the their them then there these they this those to
too under up was we were what when where which while who will with would you your yet via per all any each
error errors err failed failure fail fails warning warn info debug
please check see above below found whether raise traceback runtimeerror file line cause result status get
usr local bin lib home root opt python python3 site packages py
calling function message refer document
""".split())

# Learning settings, tuned on held-out rule examples (--eval) and on the
# dev half of tests/corpus.
MIN_RULES = 3        # a word must occur in this many rules (run-specific words do not)
ALPHA = 0.5          # additive smoothing of the per-category rates
SCALE = 1.5          # log-odds to weight
MAX_WEIGHT = 1       # below the hand words (1-3): learned words add up and break ties
PER_CATEGORY = 100   # words kept per category (the strongest)
TITLE_WEIGHT = 0.5   # a title is our wording, not a log line
LO_MIN = 1.5         # a word must be this much likelier (log) in its category's rules
MAX_CATS = 2         # a word speaks for at most this many categories (its strongest)
DEV_WEIGHT = 1.0     # --cv: a dev log's failure lines count as this many rules
DEV_LINES = 40       # failure lines read per dev log (its first ones)

# A failure line of a dev log: what the scanner would call an error, plus
# the prose that usually names a cause.
_FAIL_LINE = re.compile(r"(?i)(error|exception|fail|fatal|killed|abort|refused|denied|cannot|can't|could not|"
                        r"unable|timed? ?out|not found|no such|invalid|unsupported|mismatch|not supported)")


# -- tokeniser: the same as kb_fallback.c's nd_kb_fb_tokens ----------------

def _parts(raw):
    """A raw token's parts: split at '_', at lower-to-upper and letter-digit
    changes, and before the last capital of a capital run followed by lower
    case (HTTPError: http, error)."""
    out = []
    cur = ""
    for i, ch in enumerate(raw):
        if ch == "_":
            if cur:
                out.append(cur)
            cur = ""
            continue
        if cur:
            prev = raw[i - 1]
            nxt = raw[i + 1] if i + 1 < len(raw) else ""
            brk = (prev.islower() and ch.isupper()) or (prev.isalpha() != ch.isalpha()) or \
                  (prev.isupper() and ch.isupper() and nxt.islower())
            if brk:
                out.append(cur)
                cur = ""
        cur += ch
    if cur:
        out.append(cur)
    return out


def _keep(tok):
    """Run-specific tokens carry no meaning: numbers, hex, codes mostly
    digits."""
    if len(tok) < 2 or len(tok) > 63:
        return False
    digits = sum(c.isdigit() for c in tok)
    if digits == 0:
        return True
    letters = len(tok) - digits - tok.count("_")
    if letters < 2 or digits > 2:
        return False
    if tok.startswith("0x"):
        return False
    return True


_RAW = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*")


# Per-line prefixes the scanner strips before the classifier reads a line
# (rank and worker tags): learned from, they would look like words.
_PREFIX = re.compile(r"(^|\n)[ \t]*(\[(rank|default)[0-9]+\]:?|rank[0-9]+:|\([A-Za-z]+ pid=[0-9]+\))[ \t]*")


def tokens(text):
    """Lower-case tokens of text: each raw token (letters, digits, '_') and,
    when it splits, its parts."""
    out = []
    text = _PREFIX.sub(r"\1", text)
    for m in _RAW.finditer(text):
        raw = m.group(0)
        if len(raw) > 63:
            continue
        low = raw.lower()
        if _keep(low):
            out.append(low)
        ps = _parts(raw)
        if len(ps) > 1:
            for p in ps:
                p = p.lower()
                if p.isalpha() and len(p) >= 2:
                    out.append(p)
    return out


def old_tokens(text):
    """kb_fallback.c's tokeniser before parts were split (--eval's baseline)."""
    out = []
    for m in _RAW.finditer(text):
        raw = m.group(0)
        if 2 <= len(raw) <= 63:
            out.append(raw.lower())
    return out


# -- reading the rules ------------------------------------------------------

def read_ini(path):
    """Rules of one *.rules file: (id, category, severity, title, examples)."""
    rules = []
    cur = None
    last = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            s = line.strip()
            if not s or s[0] in "#;":
                continue
            if line[0] in " \t" and cur is not None and last:
                if last in ("title", "example-block"):
                    cur[last].append(s.lstrip("|"))
                continue
            if s.startswith("[") and s.endswith("]"):
                cur = {"id": s[1:-1], "category": None, "severity": "error", "title": [], "example": [],
                       "example-block": []}
                rules.append(cur)
                last = None
                continue
            if cur is None or "=" not in s:
                continue
            k, v = s.split("=", 1)
            k, v = k.strip(), v.strip()
            last = k
            if k in ("category", "severity"):
                cur[k] = v
            elif k in ("title", "example", "example-block"):
                cur[k].append(v)
    out = []
    for r in rules:
        if r["id"].startswith(("vocab.", "shape.")) or r["category"] not in CATEGORIES:
            continue
        ex = r["example"] + [x for x in r["example-block"] if x]
        out.append((r["id"], r["category"], r["severity"], " ".join(r["title"]), ex))
    return out


def read_tsv(path):
    rules = []
    defaults = {}
    header = None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if header is None and line.startswith("#!"):
                k, _, v = line[2:].partition("=")
                defaults[k.strip()] = v.strip()
                continue
            if not line.strip() or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("\t")]
            if header is None:
                header = fields
                continue
            row = dict(zip(header, fields))
            cat = row.get("category") or defaults.get("category")
            sev = row.get("severity") or defaults.get("severity") or "error"
            if cat not in CATEGORIES:
                continue
            title = row.get("title", "").replace("{code}", "")
            ex = [x.strip() for x in row.get("example", "").split(" ;; ") if x.strip()]
            rid = defaults.get("id-prefix", "") + "." + row.get("code", "")
            rules.append((rid, cat, sev, title, ex))
    return rules


def read_rules(rules_dir):
    """Every error or warning rule of rules_dir, sorted by id (stable across
    file systems). Info rules describe noise, not failures."""
    rules = []
    for name in sorted(os.listdir(rules_dir)):
        if name.endswith(".rules") and name not in (OUT_NAME, HAND_NAME):
            rules += read_ini(os.path.join(rules_dir, name))
    cat_dir = os.path.join(rules_dir, "catalog")
    if os.path.isdir(cat_dir):
        for name in sorted(os.listdir(cat_dir)):
            if name.endswith(".tsv"):
                rules += read_tsv(os.path.join(cat_dir, name))
    return sorted((r for r in rules if r[2] != "info"), key=lambda r: r[0])


def read_hand(rules_dir):
    """The hand vocabulary: (category, word, weight), prefix entries; its
    priors go to PRIORS."""
    out = []
    priors = PRIORS
    priors.clear()
    cat = None
    path = os.path.join(rules_dir, HAND_NAME)
    if not os.path.exists(path):
        return out
    for line in open(path, encoding="utf-8"):
        s = line.strip()
        m = re.match(r"^\[vocab\.([a-z-]+)\]$", s)
        if m:
            cat = m.group(1)
            continue
        m = re.match(r"^prior\s*=\s*([0-9]+)$", s)
        if m and cat:
            priors[cat] = int(m.group(1))
            continue
        m = re.match(r"^word\s*=\s*([1-9])\s+(.*)$", s)
        if m and cat:
            for w in m.group(2).split():
                out.append((cat, w.lower(), int(m.group(1))))
    return out


PRIORS = {}


def read_dev(corpus_dir):
    """The dev half of the corpus as (id, category, severity, title,
    examples) documents: even ids whose split is dev, the failure lines of
    each log. Odd ids (the check half) are skipped before any file is
    opened."""
    docs = []
    if not corpus_dir or not os.path.isdir(corpus_dir):
        return docs
    for name in sorted(os.listdir(corpus_dir)):
        if not (name.startswith("labels") and name.endswith(".tsv")):
            continue
        for line in open(os.path.join(corpus_dir, name), encoding="utf-8", errors="replace"):
            f = line.rstrip("\n").split("\t")
            if len(f) < 7 or not f[0].isdigit() or int(f[0]) % 2 or f[6].strip() != "dev":
                continue
            cat = f[1].strip()
            path = os.path.join(corpus_dir, f[0] + ".txt")
            if cat not in CATEGORIES or not os.path.exists(path):
                continue
            lines = [x.strip() for x in open(path, encoding="utf-8", errors="replace") if _FAIL_LINE.search(x)]
            docs.append(("corpus." + f[0], cat, "error", "", lines[:DEV_LINES]))
    return sorted(docs, key=lambda r: r[0])


# -- learning ---------------------------------------------------------------

def learn(rules):
    """{category: {word: weight}} from labelled rules."""
    df = {c: {} for c in CATEGORIES}
    ndoc = {c: 0.0 for c in CATEGORIES}
    nrules = {}
    for rid, cat, _, title, ex in rules:
        dw = DEV_WEIGHT if rid.startswith("corpus.") else 1.0
        ndoc[cat] += dw
        seen = {}
        for t in tokens(" ".join(ex)):
            seen[t] = dw
        for t in tokens(title):
            seen.setdefault(t, TITLE_WEIGHT)
        for t, w in seen.items():
            if t in STOP:
                continue
            df[cat][t] = df[cat].get(t, 0.0) + w
            nrules[t] = nrules.get(t, 0) + 1
    total = sum(ndoc.values())
    alldf = {}
    for c in CATEGORIES:
        for t, v in df[c].items():
            alldf[t] = alldf.get(t, 0.0) + v
    vocab = {}
    for c in CATEGORIES:
        if ndoc[c] == 0:
            continue
        cand = []
        for t, v in df[c].items():
            if nrules[t] < MIN_RULES:
                continue
            rest = alldf[t] - v
            p_in = (v + ALPHA) / (ndoc[c] + 2 * ALPHA)
            p_out = (rest + ALPHA) / (total - ndoc[c] + 2 * ALPHA)
            lo = math.log(p_in / p_out)
            w = min(MAX_WEIGHT, int(round(SCALE * lo)))
            if w >= 1 and lo >= LO_MIN:
                # Strong and frequent first.
                cand.append((-(lo * math.log1p(v)), t, w, lo))
        cand.sort()
        vocab[c] = {t: (w, lo) for _, t, w, lo in cand[:PER_CATEGORY]}
    # A word most categories use is no evidence: it stays with its strongest.
    owners = {}
    for c in vocab:
        for t, (w, lo) in vocab[c].items():
            owners.setdefault(t, []).append((-lo, c))
    for t, cs in owners.items():
        for _, c in sorted(cs)[MAX_CATS:]:
            del vocab[c][t]
    return {c: {t: w for t, (w, lo) in ws.items()} for c, ws in vocab.items()}


def render(vocab, nrules):
    lines = [
        "# GENERATED by scripts/dev/learn-vocab.py from the rules' examples and",
        "# titles: do not edit. After a rule change, regenerate it with",
        "#   python3 scripts/dev/learn-vocab.py",
        "# (ctest's e2e_vocab_learned fails while it is stale). Each [vocab.CATEGORY]",
        "# 'token = WEIGHT WORD...' line lists whole words (rules/FORMAT.md) that",
        "# rules of that category use much more often than others do; they add to",
        "# the hand-written vocabulary of classifier.rules.",
        "# Learned from %d rules and catalogue rows." % nrules,
    ]
    for c in CATEGORIES:
        words = vocab.get(c)
        if not words:
            continue
        lines.append("")
        lines.append("[vocab.%s]" % c)
        for w in range(MAX_WEIGHT, 0, -1):
            ws = sorted(t for t, x in words.items() if x == w)
            # Lines of ten words or so stay readable in a diff.
            for i in range(0, len(ws), 10):
                lines.append("token = %d %s" % (w, " ".join(ws[i:i + 10])))
    return "\n".join(lines) + "\n"


# -- classifying (as kb_fallback.c does) -------------------------------------

def classify(text, hand, learned, tok=tokens):
    sums = {}
    hsum = {}
    for c, w, wt in hand:
        # A word past ASCII (Chinese) counts wherever it occurs.
        if not w.isascii():
            k = text.count(w)
            sums[c] = sums.get(c, 0) + k * wt
            hsum[c] = hsum.get(c, 0) + k * wt
    for t in tok(text):
        for c, w, wt in hand:
            if t.startswith(w):
                sums[c] = sums.get(c, 0) + wt
                hsum[c] = hsum.get(c, 0) + wt
        if learned:
            for c in learned:
                wt = learned[c].get(t)
                if wt:
                    sums[c] = sums.get(c, 0) + wt
    for c, p in PRIORS.items():
        sums[c] = sums.get(c, 0) + p
    # A tie between two categories other than config goes to more hand
    # weight, then to the design order; config yields only to a larger sum.
    best = "config"
    bw = sums.get(best, 0)
    for c in CATEGORIES[:-1]:
        w = sums.get(c, 0)
        if w > bw or (w == bw and best != "config" and hsum.get(c, 0) > hsum.get(best, 0)):
            best, bw = c, w
    return best


def evaluate(rules, hand, seed):
    rnd = random.Random(seed)
    ids = [r[0] for r in rules]
    rnd.shuffle(ids)
    held = set(ids[:len(ids) // 5])
    train = [r for r in rules if r[0] not in held]
    test = [r for r in rules if r[0] in held]
    learned = learn(train)
    res = {"before": 0, "learned": 0, "learned+hand": 0}
    n = 0
    priors = dict(PRIORS)
    for _, cat, _, _, ex in test:
        for line in ex:
            n += 1
            PRIORS.clear()
            res["before"] += classify(line, hand, None, old_tokens) == cat
            res["learned"] += classify(line, [], learned) == cat
            PRIORS.update(priors)
            res["learned+hand"] += classify(line, hand, learned) == cat
    return n, res


def cross_validate(rules, dev, hand):
    """2-fold cross-validation over dev ids: the vocabulary is learned from
    the rules and one fold's dev logs, and classifies the other fold's logs
    (their failure lines); against learning from the rules alone."""
    folds = [[d for d in dev if (int(d[0][7:]) // 2) % 2 == k] for k in (0, 1)]
    base = learn(rules)
    hit_base = hit_dev = n = 0
    for k in (0, 1):
        learned = learn(rules + folds[1 - k])
        for _, cat, _, _, ex in folds[k]:
            text = "\n".join(ex)
            n += 1
            hit_base += classify(text, hand, base) == cat
            hit_dev += classify(text, hand, learned) == cat
    print("2-fold over %d dev logs: rules only %d/%d (%.1f%%), rules + other fold %d/%d (%.1f%%)" %
          (n, hit_base, n, 100.0 * hit_base / max(n, 1), hit_dev, n, 100.0 * hit_dev / max(n, 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default=os.path.join(ROOT, "rules"), help="the rules folder (default: rules/)")
    ap.add_argument("--out", help="write here instead of RULES/%s" % OUT_NAME)
    ap.add_argument("--check", action="store_true", help="only compare with the committed file")
    ap.add_argument("--eval", action="store_true", help="held-out accuracy on rule examples (20%% of rules)")
    ap.add_argument("--corpus", default=os.path.join(ROOT, "tests", "corpus"),
                    help="the corpus whose dev half is learned from (default: tests/corpus; '' for none)")
    ap.add_argument("--cv", action="store_true", help="2-fold cross-validation over the corpus's dev ids")
    ap.add_argument("--seeds", type=int, default=5, help="--eval: random splits averaged")
    a = ap.parse_args()
    rules = read_rules(a.rules)
    if a.cv:
        cross_validate(rules, read_dev(a.corpus), read_hand(a.rules))
        return 0
    if a.eval:
        hand = read_hand(a.rules)
        tot = {}
        nn = 0
        for seed in range(a.seeds):
            n, res = evaluate(rules, hand, seed)
            nn += n
            for k, v in res.items():
                tot[k] = tot.get(k, 0) + v
        for k, v in tot.items():
            print("held-out rule examples, %-13s %d/%d (%.1f%%)" % (k + ":", v, nn, 100.0 * v / nn))
        return 0
    text = render(learn(rules), len(rules))
    target = a.out or os.path.join(a.rules, OUT_NAME)
    if a.check:
        try:
            old = open(target, encoding="utf-8").read()
        except OSError:
            old = None
        if old != text:
            sys.stderr.write("%s is not up to date with the rules: run python3 scripts/dev/learn-vocab.py\n" % target)
            return 1
        return 0
    with open(target + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(target + ".tmp", target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
