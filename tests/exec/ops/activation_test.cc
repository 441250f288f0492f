#include <gtest/gtest.h>

#include "op_test_util.h"
