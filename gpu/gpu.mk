# gpu/gpu.mk — the CUDA backend's part of the build (included by the Makefile).
#
# nvcc is looked for as $(CUDA_HOME)/bin/nvcc, then on PATH, then as
# /usr/local/cuda/bin/nvcc; `make CUDA=no` builds without it on purpose.
# When found, gpu/*.cu compile to objects in libcuzk.a, C files see
# CZ_HAVE_CUDA, and every program links the static CUDA runtime, so binaries
# need the NVIDIA driver (libcuda.so, loaded at run time) but no libcudart.so.
# A machine with nvcc and no GPU builds and runs everything: the backend then
# reports no device.  When nvcc is missing, the rest builds unchanged.
#
# Device code: real sm_90 (H100/H200) plus compute_90 PTX, which the driver
# JIT-compiles for newer GPUs.  CUDA_ARCH overrides the list.

ifeq ($(CUDA),no)
NVCC :=
else ifeq ($(NVCC),)
NVCC := $(firstword $(wildcard $(CUDA_HOME)/bin/nvcc) \
                    $(shell command -v nvcc 2>/dev/null) \
                    $(wildcard /usr/local/cuda/bin/nvcc))
endif

ifneq ($(NVCC),)
CUDA_ROOT  := $(patsubst %/bin/,%,$(dir $(realpath $(NVCC))))
CUDA_ARCH  ?= -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
NVCCFLAGS  ?= -O3
# CUDA_DEFS: extra defines for the device code, e.g. -DCZ_F32_PTX=1
NVCCFLAGS  += -std=c++17 $(CUDA_ARCH) -I. -MMD -MP -DCZ_HAVE_CUDA $(CUDA_DEFS) \
              -Xcompiler -Wall,-Wextra,-Werror -Werror all-warnings
GPU_SRC    := $(wildcard gpu/*.cu)
GPU_OBJ    := $(GPU_SRC:%.cu=$(B)/obj/%.cu.o)
LIBOBJ     += $(GPU_OBJ)
CFLAGS     += -DCZ_HAVE_CUDA
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_ROOT)/lib64/libcudart_static.a \
                                      $(CUDA_ROOT)/targets/*/lib/libcudart_static.a))
GPU_LDLIBS += -L$(dir $(CUDA_LIBDIR)) -lcudart_static -ldl -lrt -lpthread -lstdc++

$(B)/obj/gpu/%.cu.o: gpu/%.cu
	@mkdir -p $(dir $@)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
else ifeq ($(CUDA),no)
$(info cuzk: CUDA=no: building without the CUDA backend)
else
$(info cuzk: nvcc not found: building without the CUDA backend)
endif

# `make gpu-check`: only what the CUDA test needs (lib/, zk/, synth/, gpu/
# and the .cu objects, no json-c, liburing, libnuma or GMP), for a GPU
# machine that has the CUDA toolkit and a C compiler but not the Debian
# packages.  These are the layers at and below gpu/ (tools/layers.txt)
# plus synth/, which the test uses to make a partition's a, b, c.
# tools/gpu-check.sh builds this and runs it (or, with --prepare, builds
# it here with cuzkd for the GPU machine to run as they are).
.PHONY: gpu-check
ifneq ($(NVCC),)
GPUCHK_SRC := $(filter-out zk/io/snarkjs_json.c,$(shell find zk -name '*.c')) $(wildcard lib/*.c synth/*.c gpu/*.c)
GPUCHK_OBJ := $(GPUCHK_SRC:%.c=$(B)/obj/%.o) $(GPU_OBJ)

$(B)/gpu-check/libcuzk-gpu.a: $(GPUCHK_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/gpu-check/gpu_cuda: $(B)/obj/selftests/gpu_cuda.o $(B)/gpu-check/libcuzk-gpu.a
	$(CC) $(LDFLAGS) -o $@ $^ -lpthread -lm $(GPU_LDLIBS)

gpu-check: $(B)/gpu-check/gpu_cuda

# `make` links it too, so the GPU machine's build cannot break unseen, and
# `make check` runs it dry (selftests/gpu_check_dry.sh: tools/gpu-check.sh
# --dry-run checks it links none of the Debian libraries and runs its plan
# with every device row "no device").
all: $(B)/gpu-check/gpu_cuda
TESTS += selftests/gpu_check_dry.sh
else
gpu-check:
	@echo "cuzk: gpu-check needs nvcc (set CUDA_HOME or PATH)"; exit 1
endif
