{{/*
Names and labels. Most helpers take a context dict: (dict "root" $ "name" "gateway").
*/}}
{{- define "simrs.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "simrs.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else if contains (include "simrs.name" .) .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name (include "simrs.name" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}

{{/* The long-running services, in call order. */}}
{{- define "simrs.components" -}}gateway identity records notifier{{- end }}

{{/* The services that own a database and ship `node dist/db/migrate.js` (compiled from src/db/migrate.ts). */}}
{{- define "simrs.migrating" -}}identity records notifier{{- end }}

{{- define "simrs.componentName" -}}
{{- printf "%s-%s" (include "simrs.fullname" .root) .name | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "simrs.selectorLabels" -}}
app.kubernetes.io/name: {{ include "simrs.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end }}

{{/* Selects every pod of the release (services and migration Jobs). */}}
{{- define "simrs.releaseSelector" -}}
app.kubernetes.io/name: {{ include "simrs.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "simrs.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "simrs.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: simrs
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end }}

{{/* Image reference for a service; a digest wins over a tag. */}}
{{- define "simrs.image" -}}
{{- $img := index .root.Values .name "image" }}
{{- $repo := printf "%s/%s" .root.Values.image.registry $img.repository }}
{{- if $img.digest }}
{{- printf "%s@%s" $repo $img.digest }}
{{- else }}
{{- printf "%s:%s" $repo (default (default .root.Chart.AppVersion .root.Values.image.tag) $img.tag) }}
{{- end }}
{{- end }}

{{/*
The contract with the services: their ports, the calls between them (rendered into NetworkPolicies;
the upstream addresses themselves are in configmap.yaml), what they use outside the release (keys of
.Values.networkPolicy) and which Secret entry feeds which variable (keys of .Values.secrets).
*/}}
{{- /*
`ops` (gateway only) serves /healthz, /readyz and /metrics and nothing else; the gateway's `http` port
answers 404 there. It is a container port for the kubelet's probes and for Prometheus (per the
NetworkPolicy), never a port of a Service or the Ingress. The other services serve those paths on `http`.
*/}}
{{- define "simrs.ports" -}}
gateway: {http: 8080, ops: 8081}
identity: {http: 4001, grpc: 50051}
records: {http: 4002}
notifier: {http: 4003, grpc: 50052}
{{- end }}

{{/* The name of the port with /healthz, /readyz and /metrics: (dict "root" $ "name" "gateway") */}}
{{- define "simrs.opsPortName" -}}
{{- ternary "ops" "http" (hasKey (index (include "simrs.ports" .root | fromYaml) .name) "ops") }}
{{- end }}

{{/* Ports a Service exposes: every port but ops. */}}
{{- define "simrs.servicePorts" -}}
{{- toYaml (omit (index (include "simrs.ports" .root | fromYaml) .name) "ops") }}
{{- end }}

{{- define "simrs.graph" -}}
gateway: {calls: {identity: [http, grpc], records: [http]}, uses: [redis]}
identity: {calls: {notifier: [grpc]}, uses: [postgres, redis]}
records: {calls: {}, uses: [postgres, redis, satusehat]}
notifier: {calls: {}, uses: [postgres, smtp]}
{{- end }}

{{- define "simrs.secretEnv" -}}
gateway: {REDIS_URL: redisUrl, PRINCIPAL_SECRET: principalSecret}
identity: {DATABASE_URL: identityDatabaseUrl, REDIS_URL: redisUrl, AUTH_SECRET: authSecret, REDIS_KEY_SECRET: redisKeySecret, ADMIN_API_TOKEN: adminApiToken}
records: {DATABASE_URL: recordsDatabaseUrl, PRINCIPAL_SECRET: principalSecret, REDIS_URL: redisUrl, SATUSEHAT_SEAL_SECRET: satusehatSealSecret}
notifier: {DATABASE_URL: notifierDatabaseUrl, SMTP_URL: smtpUrl}
identity-migrate: {DATABASE_URL: identityDatabaseUrl}
records-migrate: {DATABASE_URL: recordsDatabaseUrl, MIGRATION_DATABASE_URL: recordsMigrationDatabaseUrl}
notifier-migrate: {DATABASE_URL: notifierDatabaseUrl}
{{- end }}

{{/* env entries for one key of simrs.secretEnv: (dict "root" $ "name" "records-migrate") */}}
{{- define "simrs.secretEnvVars" -}}
{{- range $var, $ref := index (include "simrs.secretEnv" .root | fromYaml) .name }}
{{- $secret := index $.root.Values.secrets $ref }}
- name: {{ $var }}
  valueFrom:
    secretKeyRef: {name: {{ $secret.name | quote }}, key: {{ $secret.key | quote }}{{ if $secret.optional }}, optional: true{{ end }}}
{{- end }}
{{- end }}

{{/* Restricted Pod Security Standard; fixed, not configurable. */}}
{{- define "simrs.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile: {type: RuntimeDefault}
{{- end }}

{{- define "simrs.securityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
allowPrivilegeEscalation: false
privileged: false
readOnlyRootFilesystem: true
capabilities: {drop: [ALL]}
seccompProfile: {type: RuntimeDefault}
{{- end }}

{{/* The only writable path: an emptyDir on /tmp. */}}
{{- define "simrs.tmpVolume" -}}
- name: tmp
  emptyDir: {sizeLimit: 64Mi}
{{- end }}

{{- define "simrs.tmpMount" -}}
- {name: tmp, mountPath: /tmp}
{{- end }}

{{/* Downward API variables and the OpenTelemetry resource attributes built from them. */}}
{{- define "simrs.otelEnv" -}}
- name: POD_NAME
  valueFrom: {fieldRef: {fieldPath: metadata.name}}
- name: NODE_NAME
  valueFrom: {fieldRef: {fieldPath: spec.nodeName}}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "service.namespace=simrs,service.version=%s,deployment.environment.name=%s,k8s.namespace.name=%s,k8s.deployment.name=%s,k8s.pod.name=$(POD_NAME),k8s.node.name=$(NODE_NAME)" .root.Chart.AppVersion .root.Values.config.environment .root.Release.Namespace (include "simrs.componentName" .) | quote }}
{{- end }}
