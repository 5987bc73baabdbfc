#!/bin/sh
# Stand-in for Prisma's native schema engine, which cannot be downloaded on this machine.
# `prisma generate` only checks that the path exists; migrations go through the WebAssembly engine.
echo "Mosaic: the native Prisma schema engine is not installed. Use 'npm run db:migration -- <name>' and 'npm run db:migrate'." >&2
exit 1
