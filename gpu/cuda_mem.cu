/* SPDX-License-Identifier: MIT */
/*
 * gpu/cuda_mem.cu — what every CUDA file of the backend uses: an error
 * turned into the device's fate (cz_cuda_fail: out of memory fails the
 * partition, a sticky error takes the device out of service), a kernel
 * launch checked, the device memory free, a host-to-device copy.  Here,
 * below the device's lifetime (gpu/cuda_dev.cu) and the kernels' files
 * (gpu/msm.cu, gpu/ntt.cu) that both call it, so none calls back up.
 */
#include "gpu/cuda_pvt.cuh"

#include <errno.h>
#include <stdio.h>

static int sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchFailure:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorECCUncorrectable:
	case cudaErrorAssert:
	case cudaErrorLaunchTimeout:
	case cudaErrorDevicesUnavailable:
	case cudaErrorNoDevice:
	case cudaErrorContextIsDestroyed:
	case cudaErrorUnknown:
		return 1;
	default:
		return 0;
	}
}

int cz_cuda_fail(struct cz_cuda_dev *d, cudaError_t err, const char *what, const char *file,
		 int line)
{
	(void)cudaGetLastError();  /* clear a non-sticky error for the next call */
	if (err == cudaErrorMemoryAllocation) {
		fprintf(stderr, "cuzk: cuda device %d: out of device memory (%s at %s:%d)\n", d->id,
			what, file, line);
		return -ENOMEM;
	}
	if (sticky(err)) {
		if (!d->dead)
			fprintf(stderr, "cuzk: cuda device %d (%s): %s: %s in %s at %s:%d%s; device out of service\n",
				d->id, d->desc, cudaGetErrorName(err), cudaGetErrorString(err), what, file,
				line, d->sync ? "" : " (or a kernel before it: CZ_CUDA_SYNC=1 names it)");
		d->dead = 1;
		return -EIO;
	}
	fprintf(stderr, "cuzk: cuda device %d: %s: %s (%s at %s:%d)\n", d->id, cudaGetErrorName(err),
		cudaGetErrorString(err), what, file, line);
	return -EIO;
}

cudaError_t cz_cuda_launched(struct cz_cuda_dev *d)
{
	cudaError_t e = cudaGetLastError();

	if (e == cudaSuccess && d->sync)
		e = cudaStreamSynchronize(d->s);
	return e;
}

size_t cz_cuda_mem_free(struct cz_cuda_dev *d)
{
	size_t fr = 0, total = 0;
	uint64_t reserved = 0, used = 0;

	if (cudaMemGetInfo(&fr, &total) != cudaSuccess)
		fr = 0;
	if (cudaMemPoolGetAttribute(d->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
		    cudaSuccess &&
	    cudaMemPoolGetAttribute(d->pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
	    reserved > used)
		fr += (size_t)(reserved - used);
	(void)cudaGetLastError();
	return fr;
}

cudaError_t cz_cuda_h2d(struct cz_cuda_dev *d, void *dst, const void *src, size_t bytes)
{
	/* Unified addressing: the driver sees whether src is pinned (a
	 * registered range) and copies by DMA from it, else it stages. */
	return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, d->s);
}
