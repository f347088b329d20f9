{{/*
Non-secret environment of each service (its ConfigMap). Upstreams are addressed by Service name in
the release namespace; the chart test derives the allowed call graph from these values.
*/}}
{{- define "simrs.configData" -}}
{{- $v := .root.Values }}
{{- $ports := include "simrs.ports" .root | fromYaml }}
{{- $host := include "simrs.fullname" .root }}
{{- if eq .name "gateway" }}
GATEWAY_PORT: {{ $ports.gateway.http | quote }}
OPS_PORT: {{ $ports.gateway.ops | quote }}
IDENTITY_URL: {{ printf "http://%s-identity:%v" $host $ports.identity.http | quote }}
IDENTITY_GRPC: {{ printf "%s-identity:%v" $host $ports.identity.grpc | quote }}
RECORDS_URL: {{ printf "http://%s-records:%v" $host $ports.records.http | quote }}
INTEGRATION_PREFIX: {{ $v.config.integrationPrefix | quote }}
CORS_ALLOWED_ORIGINS: {{ join "," $v.config.corsAllowedOrigins | quote }}
PUBLIC_URL: {{ $v.config.publicUrl | quote }}
TRUSTED_PROXIES: {{ join "," $v.config.trustedProxies | quote }}
{{- include "simrs.redisConfig" $v }}
{{- else if eq .name "identity" }}
HTTP_PORT: {{ $ports.identity.http | quote }}
MIGRATE_ON_START: "false"     # the migration Job does it, once, before the pods roll
GRPC_PORT: {{ $ports.identity.grpc | quote }}
NOTIFIER_GRPC: {{ printf "%s-notifier:%v" $host $ports.notifier.grpc | quote }}
PUBLIC_URL: {{ $v.config.publicUrl | quote }}
COOKIE_DOMAIN: {{ $v.config.cookieDomain | quote }}
CORS_ALLOWED_ORIGINS: {{ join "," $v.config.corsAllowedOrigins | quote }}
{{- include "simrs.redisConfig" $v }}
{{- else if eq .name "records" }}
HTTP_PORT: {{ $ports.records.http | quote }}
MIGRATE_ON_START: "false"     # the owner role stays with the migration Job
INTEGRATION_PREFIX: {{ $v.config.integrationPrefix | quote }}
PUBLIC_URL: {{ $v.config.publicUrl | quote }}
SATUSEHAT_WORKER: "true"      # sends finished visits to SATUSEHAT (egress: networkPolicy.satusehat)
{{- include "simrs.redisConfig" $v }}
{{- else if eq .name "notifier" }}
HTTP_PORT: {{ $ports.notifier.http | quote }}
MIGRATE_ON_START: "false"     # the migration Job does it, once, before the pods roll
GRPC_PORT: {{ $ports.notifier.grpc | quote }}
MAIL_FROM: {{ $v.config.mailFrom | quote }}
{{- end }}
LOG_LEVEL: {{ $v.config.logLevel | quote }}
NODE_ENV: "production"
OTEL_SERVICE_NAME: {{ .name | quote }}
OTEL_TRACES_SAMPLER: {{ $v.telemetry.sampler | quote }}
OTEL_TRACES_SAMPLER_ARG: {{ $v.telemetry.samplerArg | quote }}
{{- with $v.telemetry.otlp.endpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
OTEL_EXPORTER_OTLP_PROTOCOL: {{ $v.telemetry.otlp.protocol | quote }}
{{- end }}
{{- end }}

{{/* The ConfigMap's data: the settings above plus <service>.env, which may not override them. */}}
{{- define "simrs.configMapData" -}}
{{- $data := include "simrs.configData" . | fromYaml }}
{{- range $key, $value := (index .root.Values .name).env }}
{{- if hasKey $data $key }}{{ fail (printf "%s.env.%s is set by the chart" $.name $key) }}{{ end }}
{{- $_ := set $data $key (toString $value) }}
{{- end }}
{{- toYaml $data }}
{{- end }}

{{/* Redis through Sentinels when the operator lists them (gateway, identity and records). */}}
{{- define "simrs.redisConfig" -}}
{{- with .config.redisSentinels }}
REDIS_SENTINELS: {{ join "," . | quote }}
REDIS_MASTER_NAME: {{ $.config.redisMasterName | quote }}
{{- end }}
{{- end }}
