# Embeds data/targets/*.json into the binary so that built-in target names resolve from any working
# directory after install; the JSON files stay the single source of truth.
#
# Two roles. Included from CMakeLists.txt, it sets NPUGAP_EMBEDDED_TARGETS_CC and a custom command
# that regenerates that file whenever a profile changes. Run as `cmake -P` by that command, it writes
# the file: one raw string literal per profile.

if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB profiles "${NPUGAP_TARGETS_DIR}/*.json")
  list(SORT profiles)
  set(entries "")
  foreach(profile IN LISTS profiles)
    get_filename_component(name "${profile}" NAME_WE)
    file(READ "${profile}" text)
    string(FIND "${text}" ")npugap_json\"" clash)
    if(NOT clash EQUAL -1)
      message(FATAL_ERROR "${profile}: contains the raw-string delimiter )npugap_json\"")
    endif()
    string(APPEND entries "    {\"${name}\", R\"npugap_json(${text})npugap_json\"},\n")
  endforeach()
  file(WRITE "${OUT}.tmp"
    "// Generated from data/targets/*.json by cmake/EmbedTargets.cmake; edit the JSON files instead.\n"
    "#include \"npugap/target/embedded.h\"\n\n"
    "namespace npugap::target::internal {\n\n"
    "const EmbeddedProfile kEmbeddedProfiles[] = {\n${entries}};\n"
    "const std::size_t kNumEmbeddedProfiles = sizeof(kEmbeddedProfiles) / sizeof(kEmbeddedProfiles[0]);\n\n"
    "}  // namespace npugap::target::internal\n")
  file(RENAME "${OUT}.tmp" "${OUT}")
  return()
endif()

file(GLOB NPUGAP_TARGET_PROFILES CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/data/targets/*.json")
set(NPUGAP_EMBEDDED_TARGETS_CC "${CMAKE_CURRENT_BINARY_DIR}/generated/embedded_targets.cc")
add_custom_command(
  OUTPUT "${NPUGAP_EMBEDDED_TARGETS_CC}"
  COMMAND "${CMAKE_COMMAND}" -DNPUGAP_TARGETS_DIR=${CMAKE_CURRENT_SOURCE_DIR}/data/targets
          -DOUT=${NPUGAP_EMBEDDED_TARGETS_CC} -P "${CMAKE_CURRENT_LIST_FILE}"
  DEPENDS ${NPUGAP_TARGET_PROFILES} "${CMAKE_CURRENT_LIST_FILE}"
  COMMENT "Embedding target profiles (data/targets/*.json)"
  VERBATIM)
