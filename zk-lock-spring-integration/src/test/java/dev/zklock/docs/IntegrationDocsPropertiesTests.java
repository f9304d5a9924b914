package dev.zklock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code zk-lock.integration.*} properties the docs name are this module's, as
 * its annotation processor wrote them, and docs/configuration.md lists each once with
 * its default: the part of {@link DocsPropertiesTests} that needs this module's
 * metadata.
 */
class IntegrationDocsPropertiesTests {

	private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

	@Test
	void everyIntegrationPropertyTheDocsNameExists() {
		Map<String, JsonNode> properties = metadata();
		List<String> names = new ArrayList<>();
		List<String> unknown = new ArrayList<>();
		for (DocsPropertiesTests.NamedProperty named : DocsPropertiesTests
			.namedInDocs((name) -> name.startsWith(DocsPropertiesTests.INTEGRATION_PREFIX))) {
			names.add(named.name());
			if (!properties.containsKey(named.name())) {
				unknown.add(named.where());
			}
		}
		assertThat(names).as("integration properties in the docs").isNotEmpty();
		assertThat(unknown).as("names that are not in " + METADATA).isEmpty();
	}

	@Test
	void theConfigurationTableListsEveryIntegrationPropertyWithItsDefault() {
		Map<String, JsonNode> properties = metadata();
		Path page = MarkdownPages.ofRepository().root().resolve("docs/configuration.md");
		Map<String, String> rows = new LinkedHashMap<>();
		for (String line : MarkdownPages.prose(page)) {
			Matcher row = DocsPropertiesTests.TABLE_ROW.matcher(line);
			if (row.matches() && row.group(1).startsWith(DocsPropertiesTests.INTEGRATION_PREFIX)) {
				assertThat(rows.put(row.group(1), row.group(2))).as("rows for " + row.group(1)).isNull();
			}
		}
		assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(properties.keySet());
		rows.forEach((name, documented) -> {
			JsonNode defaultValue = properties.get(name).get("defaultValue");
			String expected = (defaultValue == null) ? "(none)" : "`" + defaultValue.asString() + "`";
			assertThat(documented).as(name).startsWith(expected);
		});
	}

	private static Map<String, JsonNode> metadata() {
		JsonNode root = new ObjectMapper().readTree(METADATA.toFile());
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		for (JsonNode property : root.get("properties")) {
			properties.put(property.get("name").asString(), property);
		}
		assertThat(properties).as(METADATA.toString()).containsKey("zk-lock.integration.lock-registry.enabled");
		return properties;
	}

}
