#!/bin/sh
# Makes the town on first start (listening on all interfaces, since the container's ports are
# what gets published), then runs `soul COMMAND --town /town`.
set -eu
if [ ! -f /town/town.toml ]; then
  soul init /town --listen 0.0.0.0:7447 --dashboard-listen 0.0.0.0:3000
fi
exec soul "$@" --town /town
