# nd_embed_data(<root> <out.c>): the build step that turns <root>'s rule files
# and data tables into <out.c> (cmake/embed.cmake writes it).
#
# A dependency list alone misses a deleted or renamed file: the generated C
# file stays newer than every file left, so the binary would keep rules that
# are gone. The glob is CONFIGURE_DEPENDS, so a changed set of names re-runs
# the configure step, which rewrites <out.c>.manifest (the sorted names) only
# when the set differs; the manifest is a dependency, so add, delete and
# rename each regenerate <out.c>, and an unchanged set rebuilds nothing.
set(ND_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed.cmake)

function(nd_embed_data root out)
  file(GLOB files CONFIGURE_DEPENDS
       ${root}/rules/*.rules ${root}/rules/catalog/*.tsv ${root}/data/*.tsv)
  list(SORT files)
  set(names "")
  foreach(f ${files})
    file(RELATIVE_PATH rel ${root} ${f})
    string(APPEND names "${rel}\n")
  endforeach()
  set(manifest ${out}.manifest)
  # file(CONFIGURE) leaves the file untouched when its content is unchanged.
  file(CONFIGURE OUTPUT ${manifest} CONTENT "${names}" @ONLY)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${root} -P ${ND_EMBED_SCRIPT}
    DEPENDS ${files} ${manifest} ${ND_EMBED_SCRIPT}
    COMMENT "Embedding rules and data tables"
    VERBATIM)
endfunction()
