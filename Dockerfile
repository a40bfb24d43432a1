# The office engine function (engineOffice; processOffice with ENGINE_ISOLATION=inline) as a Lambda container image: LibreOffice,
# calibre and pandoc do not fit a zip package. `serverless deploy` builds it with OFFICE_IMAGE=1
# (provider.ecr.images.office in serverless.yml; Docker needed) and pushes it to the stack's ECR repository.
# Debian 12, like the machines CI runs on: the same packages .ci/run installs for these engines, and the
# LibreOffice version lib/engines/core/families.ts lists for the deployed stack (7.4.7.2).

# 1. The handler's bundle (the same esbuild settings as serverless.yml's custom.esbuild) and the npm
#    packages it keeps external, installed for Linux x64.
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY lib lib
COPY functions functions
# Both handlers that may run LibreOffice: the office engine function (ENGINE_ISOLATION=function, the
# deployed default) and the process function itself (ENGINE_ISOLATION=inline).
RUN npx esbuild functions/engines/office.ts functions/tasks/process-office-step.ts --bundle --platform=node --target=node22 --format=cjs \
      --main-fields=module,main --minify-whitespace --minify-syntax --sourcemap=linked --sources-content=false \
      --external:sharp \
      --alias:@aws-sdk/credential-provider-node=./lib/wiring/lambda-credentials.ts \
      --outbase=. --outdir=/task --out-extension:.js=.cjs
# Only the externals, at the versions package.json pins.
RUN node -e "const p=require('./package.json');const pick=['sharp'];require('fs').writeFileSync('/task/package.json',JSON.stringify({private:true,dependencies:Object.fromEntries(pick.map(n=>[n,p.dependencies[n]]))}))" \
 && cd /task && npm install --omit=dev --no-audit --no-fund --os=linux --cpu=x64 --libc=glibc

# 2. The Lambda runtime interface client (built from source: it has a native part).
FROM node:22-bookworm-slim AS ric
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      g++ make cmake autoconf automake libtool unzip python3 libcurl4-openssl-dev ca-certificates >/dev/null
WORKDIR /ric
RUN npm install --no-audit --no-fund aws-lambda-ric@4.0.2

# 3. The image: Node 22, the office engines' Debian packages (.ci/office-packages, the list CI installs:
#    LibreOffice without GUI, calibre, pandoc, fonts); the bundle and its packages.
#    No bubblewrap: Lambda gives no user namespaces, so the function runs with ENGINE_CONFINEMENT=platform,
#    where documents lose their external references before LibreOffice opens them (lib/engines/office/office-links.ts).
#    No secret in the image. As engineOffice its role grants nothing but logs and traces, its network
#    reaches only the files bucket, and after each task no other process and nothing in /tmp is left.
FROM node:22-bookworm-slim
COPY .ci/office-packages /tmp/office-packages
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      $(grep -v '^#' /tmp/office-packages) >/dev/null \
 && rm -rf /var/lib/apt/lists/* /tmp/office-packages \
 && fc-cache -f
# Only /tmp is writable in Lambda: LibreOffice's profile, font caches and every task's folder go there
# (each task's folder is removed when it ends, lib/engines/core/tool.ts).
ENV HOME=/tmp TMPDIR=/tmp LAMBDA_TASK_ROOT=/var/task NODE_ENV=production
WORKDIR /var/task
COPY --from=ric /ric/node_modules /opt/ric/node_modules
COPY --from=build /task/ /var/task/
ENTRYPOINT ["/usr/local/bin/node", "/opt/ric/node_modules/aws-lambda-ric/index.mjs"]
CMD ["functions/engines/office.handler"]
