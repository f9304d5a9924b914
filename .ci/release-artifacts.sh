#!/usr/bin/env bash
# Lists what `./mvnw -B -Prelease -DskipTests install` put in the local Maven repository for
# each published zk-lock module, and fails when one is missing: for the 7 modules with code the
# jar, -sources.jar, -javadoc.jar, POM and CycloneDX SBOM (-cyclonedx.json and .xml); for the
# BOM and the parent their POM and SBOM. With --sha256 it also prints each jar's checksum, to
# compare two builds of one commit (the jars are reproducible).
set -euo pipefail

cd "$(dirname "$0")/.."
repository="${MAVEN_REPOSITORY:-$HOME/.m2/repository}/dev/zklock"
# the project's version: the first <version> of the root POM, the parent's own
version="$(sed -n 's:^\t<version>\(.*\)</version>$:\1:p' pom.xml | head -n 1)"
code_modules=(zk-lock-core zk-lock-spring-boot-autoconfigure zk-lock-spring-boot-starter
	zk-lock-spring-boot-embedded zk-lock-test zk-lock-shedlock zk-lock-spring-integration)
pom_modules=(zk-lock-bom zk-lock-parent)

missing=0
check() {
	local file="$1"
	if [[ -s "$file" ]]; then
		printf 'ok       %s\n' "${file#"$repository"/}"
	else
		printf 'MISSING  %s\n' "${file#"$repository"/}"
		missing=$((missing + 1))
	fi
}

for module in "${code_modules[@]}"; do
	base="$repository/$module/$version/$module-$version"
	for suffix in .jar -sources.jar -javadoc.jar .pom -cyclonedx.json -cyclonedx.xml; do
		check "$base$suffix"
	done
done
for module in "${pom_modules[@]}"; do
	base="$repository/$module/$version/$module-$version"
	for suffix in .pom -cyclonedx.json -cyclonedx.xml; do
		check "$base$suffix"
	done
done

if [[ "${1:-}" == "--sha256" ]]; then
	for module in "${code_modules[@]}"; do
		(cd "$repository/$module/$version" && sha256sum "$module-$version.jar" "$module-$version-sources.jar" \
			"$module-$version-javadoc.jar")
	done
fi

if ((missing > 0)); then
	echo "$missing release artifact(s) of zk-lock $version missing" >&2
	exit 1
fi
echo "every release artifact of zk-lock $version is installed"
