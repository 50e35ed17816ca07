#!/bin/bash
# The GPU machine's build of the CUDA check (`make gpu-check`: no json-c,
# liburing, libnuma or GMP) links, and its full plan runs dry, every device
# row "no device" (tools/gpu-check.sh --dry-run; skips without nvcc).
cd "$(dirname "$0")/.." && exec tools/gpu-check.sh --dry-run
