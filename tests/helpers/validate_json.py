#!/usr/bin/python3
"""Validates npu-doctor JSON documents against the schemas in docs/schema/
(JSON Schema draft 2020-12) with the jsonschema module.

  validate_json.py SCHEMA_DIR SCHEMA_NAME FILE...

SCHEMA_NAME is a file in SCHEMA_DIR ("ps.schema.json"); its $refs to the
other files there are resolved locally, nothing is fetched. Prints one line
per file ("ok FILE" or the first errors with their JSON path) and exits 0
when all are valid, 1 when one is not, 2 on bad usage or a bad schema.
"""
import json
import os
import sys

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError as e:  # the test names the package to install
    print("validate_json.py: %s (install python3-jsonschema)" % e, file=sys.stderr)
    sys.exit(2)


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    sdir, name, files = os.path.abspath(argv[1]), argv[2], argv[3:]
    store = {}
    for fn in sorted(os.listdir(sdir)):
        if fn.endswith(".schema.json"):
            with open(os.path.join(sdir, fn)) as fp:
                doc = json.load(fp)
            Draft202012Validator.check_schema(doc)
            store["file://%s/%s" % (sdir, fn)] = doc
    base = "file://%s/%s" % (sdir, name)
    if base not in store:
        print("validate_json.py: no schema %s in %s" % (name, sdir), file=sys.stderr)
        return 2
    resolver = jsonschema.RefResolver(base_uri=base, referrer=store[base], store=store)
    validator = Draft202012Validator(store[base], resolver=resolver)
    bad = 0
    for f in files:
        try:
            with open(f) as fp:
                doc = json.load(fp)
        except (OSError, ValueError) as e:
            print("FAIL %s: not JSON: %s" % (f, e))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.absolute_path))
        if not errors:
            print("ok %s" % f)
            continue
        bad += 1
        for e in errors[:5]:
            path = "".join("[%r]" % p for p in e.absolute_path) or "(top)"
            print("FAIL %s %s: %s" % (f, path, e.message[:300]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
