# bash completion for npu-doctor. Commands and options are read from the
# installed binary's own --help, so they never go stale; rule ids from
# `npu-doctor rules list --json`.
_npu_doctor_options() {
  # The option lines of --help ("  -l, --level N", "  --json"), not the prose or examples.
  "$1" "$2" --help 2>/dev/null | grep -o -E -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
    grep -o -E -- '--[a-z][a-z0-9-]*' | sort -u
}

_npu_doctor() {
  local cur prev bin cmd i
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  bin=${COMP_WORDS[0]}
  cmd=
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      --) return 0 ;;   # run -- CMD: the job's own words
      -*) ;;
      *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done
  local j
  for ((j = i + 1; j < COMP_CWORD; j++)); do
    [ "${COMP_WORDS[j]}" = -- ] && return 0   # run -- CMD: the job's own words
  done
  if [ -z "$cmd" ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "$("$bin" --help 2>/dev/null | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p') --help --version" -- "$cur"))
    return 0
  fi
  case $prev in
    --root|--rules|--report|-o|--output|--env-file|--json-summary|--metrics-file)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -f -- "$cur")); return 0 ;;
    --python)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -c -- "$cur")); return 0 ;;
    --pid|--env-from)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -W "$(ps -e -o pid= 2>/dev/null)" -- "$cur")); return 0 ;;
  esac
  if [ "$cmd" = rules ] && [ "$COMP_CWORD" -eq $((i + 1)) ]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "list lint test" -- "$cur")); return 0
  fi
  if [ "$cmd" = rules ] && [ "${COMP_WORDS[i+1]}" = test ] && [[ $cur != -* ]]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "$("$bin" rules list --json 2>/dev/null | grep -o '"id": *"[^"]*"' | sed 's/.*"\([^"]*\)"$/\1/')" -- "$cur"))
    return 0
  fi
  if [[ $cur == -* ]]; then
    # shellcheck disable=SC2207
    COMPREPLY=($(compgen -W "$(_npu_doctor_options "$bin" "$cmd")" -- "$cur"))
    return 0
  fi
  case $cmd in
    explain|diff|rules)
      # shellcheck disable=SC2207
      COMPREPLY=($(compgen -f -- "$cur")) ;;
  esac
  return 0
}
complete -o filenames -F _npu_doctor npu-doctor
