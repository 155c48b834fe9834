// gtest entry point for binaries linked with SystemC: libsystemc defines main() and calls
// sc_main, which runs the tests. Each test case runs in its own process (one elaboration).
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int argc, char* argv[]) {
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
