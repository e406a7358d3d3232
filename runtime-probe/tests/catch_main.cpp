// Catch2's main for the probe's test binaries (the probe builds standalone
// too, without tests/unit/catch_main.cpp).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
