# -*- Python -*-
# Runs every GoogleTest binary under build/unittests as lit tests, one lit
# test per gtest case, so one `lit` run reports regression and unit tests.

import os

import lit.formats

config.name = "DTENSOR-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.dtensor_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
