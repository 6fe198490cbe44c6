#pragma once
// gigaseg: segmentation of very large images with Kokkos. Include this for the whole library.
#include "gigaseg_config.hpp"
#include "core/context.hpp"
#include "core/error.hpp"
#include "core/image.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/image_file.hpp"
#include "core/pixel.hpp"
#include "core/runtime.hpp"
#include "core/topology.hpp"
#include "core/transfer.hpp"
