#!/usr/bin/env bash
# `rules test` scans an example-block as a little log, with the rule's
# requires/unless/within applied: a block that has the context passes, a
# block without it fails, and a counter-block that yields the finding
# fails, each named by file:line. One-line examples still ignore context.
# shellcheck source=tests/e2e/lib/assert.sh
. "$(dirname "$0")/lib/assert.sh"

mkdir -p "$T/good" "$T/bad"
cat >"$T/good/ctx.rules" <<'R'
[site.ctx-requires]
category = config
severity = warning
pattern  = SITE-CTX-MARK
requires = re:^site context line
within   = 2
title    = t
fix      = f
example  = SITE-CTX-MARK
example-block = site context line
    SITE-CTX-MARK
counter-block = site context line
    one
    two
    three
    SITE-CTX-MARK

[site.ctx-unless]
category = config
severity = warning
pattern  = SITE-UNLESS-MARK
unless   = re:site all clear
title    = t
fix      = f
example-block = SITE-UNLESS-MARK
counter-block = SITE-UNLESS-MARK
    site all clear
R
run_nd "$T/out" "$T/err" rules test --rules "$T/good"
expect_rc 0 "blocks that fit their rule's context pass"
assert_not_contains "$T/out" "block gives" "no block failure reported"

cat >"$T/bad/ctx.rules" <<'R'
[site.ctx-requires]
category = config
severity = warning
pattern  = SITE-CTX-MARK
requires = re:^site context line
title    = t
fix      = f
example-block = SITE-CTX-MARK
    no context in this block

[site.ctx-unless]
category = config
severity = warning
pattern  = SITE-UNLESS-MARK
unless   = re:site all clear
title    = t
fix      = f
example  = SITE-UNLESS-MARK
counter-block = SITE-UNLESS-MARK
    nothing that clears it
R
run_nd "$T/out" "$T/err" rules test --rules "$T/bad"
expect_rc 1 "blocks that contradict their rule's context fail"
assert_contains "$T/out" "ctx.rules:8: [site.ctx-requires] example-block gives no finding of this rule: SITE-CTX-MARK ..." \
  "an example-block without the required context is named by file:line"
assert_contains "$T/out" "ctx.rules:19: [site.ctx-unless] counter-block gives this rule's finding: SITE-UNLESS-MARK ..." \
  "a counter-block without the clearing line is named by file:line"
assert_contains "$T/out" "2 failures" "exactly the two blocks fail"
finish
