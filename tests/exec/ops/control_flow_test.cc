#include <gtest/gtest.h>

#include "op_test_expect.h"
