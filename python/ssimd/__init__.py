"""Generated protocol buffer modules of ssimd's API (ssimd.v1); see python/generate_stubs.sh."""
