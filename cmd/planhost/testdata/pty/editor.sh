#!/bin/sh
# A test editor: appends a step to the plan file it is given.
printf '2. Edited step from the editor.\n' >> "$1"
