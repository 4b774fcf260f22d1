#!/bin/sh
# The commits since the last tag, one line each (all commits when there is no tag).
last=$(git describe --tags --abbrev=0 2>/dev/null)
if [ -n "$last" ]; then git log --oneline "$last"..HEAD; else git log --oneline; fi
