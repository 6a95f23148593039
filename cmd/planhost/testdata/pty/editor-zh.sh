#!/bin/sh
# A test editor: appends a step, in Chinese, to the plan file it is given.
printf '5. 更新变更记录。\n' >> "$1"
