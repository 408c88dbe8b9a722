# PII censor extras: Google Benchmark for bench/pii (optional in CMake, so the
# build works without it) and clang + compiler-rt for the libFuzzer target
# (fuzz/pii/run.sh).
need_apt libbenchmark-dev clang libclang-rt-14-dev
