/* unexported-fixture.h: a public declaration libnapkin-1 does not define, for
 * build-aux/check-exports to find (tests/lib/meson.build) */
NK_AVAILABLE_IN_ALL
void nk_fixture_not_in_the_library (void);
