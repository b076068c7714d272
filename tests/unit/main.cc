// The one main() of the unit-test binary; every tests/unit/*_test.cc adds its cases.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
