# Embeds data/precision/*.json (the mixed-precision op lists and the vector kernels' intermediate
# precision) into the binary, as cmake/EmbedTargets.cmake does for the target profiles; the JSON
# files stay the single source of truth.

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB files "${NPUGAP_PRECISION_DIR}/*.json")
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
    "// Generated from data/precision/*.json by cmake/EmbedPrecisionData.cmake; edit the JSON files instead.\n"
    "#include \"analysis/precision/embedded.h\"\n\n"
    "namespace npugap::analysis::precision::internal {\n\n"
    "const EmbeddedData kEmbeddedPrecisionData[] = {\n${entries}};\n"
    "const std::size_t kNumEmbeddedPrecisionData = sizeof(kEmbeddedPrecisionData) / sizeof(kEmbeddedPrecisionData[0]);\n\n"
    "}  // namespace npugap::analysis::precision::internal\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

file(GLOB NPUGAP_PRECISION_DATA CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/data/precision/*.json")
set(NPUGAP_EMBEDDED_PRECISION_CC "${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_precision.cc")
add_custom_command(
  OUTPUT "${NPUGAP_EMBEDDED_PRECISION_CC}"
  COMMAND "${CMAKE_COMMAND}" -DNPUGAP_PRECISION_DIR=${CMAKE_CURRENT_SOURCE_DIR}/data/precision
          -DOUT=${NPUGAP_EMBEDDED_PRECISION_CC} -P "${CMAKE_CURRENT_LIST_FILE}"
  DEPENDS ${NPUGAP_PRECISION_DATA} "${CMAKE_CURRENT_LIST_FILE}"
  COMMENT "Embedding precision data (data/precision/*.json)"
  VERBATIM)
