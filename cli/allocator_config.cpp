// The npusim executable allocates through jemalloc (sim/CMakeLists.txt), configured here: its
// arenas are backed by transparent huge pages. Compiling a large model builds gigabytes of
// command lists and simulating one records millions of trace events; with 4 KiB pages their
// page faults were half of the compile time (ViT-B/16, 2 layers, on `tiny`: 42.6 s with
// glibc's malloc, 12.7 s with this), the memory footprint the same. jemalloc reads this symbol,
// its configuration entry point, once at its start-up; nothing writes it.
extern "C" {
const char* malloc_conf = "thp:always,metadata_thp:auto";
}
