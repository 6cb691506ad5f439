#!/bin/sh
echo "coverage tools are not available in an offline build" >&2
exit 1
