# Embeds a folder's *.json files into the binary as one raw string literal each, so that the data
# (target profiles, precision op lists) resolves from any working directory after install; the JSON
# files stay the single source of truth.
#
# Two roles. Included from CMakeLists.txt, it defines npugap_embed_json_files(), which adds a custom
# command that regenerates a .cc file whenever one of the JSON files changes. Run as `cmake -P` by
# that command, it writes the file:
#
#   // Generated ...
#   #include "HEADER"
#   namespace NAMESPACE {
#   const TYPE ARRAY[] = {{"file stem", R"npugap_json(...)npugap_json"}, ...};
#   const std::size_t COUNT = ...;
#   }

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB files "${DIR}/*.json")
  list(SORT files)
  set(entries "")
  foreach(f IN LISTS files)
    get_filename_component(name "${f}" NAME_WE)
    file(READ "${f}" text)
    string(FIND "${text}" ")npugap_json\"" clash)
    if(NOT clash EQUAL -1)
      message(FATAL_ERROR "${f}: contains the raw-string delimiter )npugap_json\"")
    endif()
    string(APPEND entries "    {\"${name}\", R\"npugap_json(${text})npugap_json\"},\n")
  endforeach()
  file(WRITE "${OUT}.tmp"
    "// Generated from ${LABEL}/*.json by cmake/EmbedJsonFiles.cmake; edit the JSON files instead.\n"
    "#include \"${HEADER}\"\n\n"
    "namespace ${NAMESPACE} {\n\n"
    "const ${TYPE} ${ARRAY}[] = {\n${entries}};\n"
    "const std::size_t ${COUNT} = sizeof(${ARRAY}) / sizeof(${ARRAY}[0]);\n\n"
    "}  // namespace ${NAMESPACE}\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

set(NPUGAP_EMBED_JSON_SCRIPT "${CMAKE_CURRENT_LIST_FILE}")

# npugap_embed_json_files(OUT_VAR DIR data/x OUTPUT name.cc HEADER h NAMESPACE ns TYPE T ARRAY a
#                         COUNT n): sets OUT_VAR to the generated file (in the build folder's
# generated/), to add to a target's sources. DIR is relative to the source folder.
function(npugap_embed_json_files out_var)
  cmake_parse_arguments(E "" "DIR;OUTPUT;HEADER;NAMESPACE;TYPE;ARRAY;COUNT" "" ${ARGN})
  file(GLOB inputs CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${E_DIR}/*.json")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/generated/${E_OUTPUT}")
  add_custom_command(
    OUTPUT "${out}"
    COMMAND "${CMAKE_COMMAND}" -DDIR=${CMAKE_CURRENT_SOURCE_DIR}/${E_DIR} -DLABEL=${E_DIR} -DOUT=${out}
            -DHEADER=${E_HEADER} -DNAMESPACE=${E_NAMESPACE} -DTYPE=${E_TYPE} -DARRAY=${E_ARRAY}
            -DCOUNT=${E_COUNT} -P "${NPUGAP_EMBED_JSON_SCRIPT}"
    DEPENDS ${inputs} "${NPUGAP_EMBED_JSON_SCRIPT}"
    COMMENT "Embedding ${E_DIR}/*.json"
    VERBATIM)
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()
