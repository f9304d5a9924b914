package dev.zklock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import dev.zklock.docs.MarkdownPages.CodeBlock;
import dev.zklock.docs.MarkdownPages.InlineCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The properties the docs name are the ones zk-lock has: checked against the
 * configuration metadata that the annotation processor writes from the code. The
 * table in docs/configuration.md lists every property once, with its default.
 */
class DocsPropertiesTests {

	private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

	private static final Path CONFIGURATION = Path.of("docs/configuration.md");

	// names the docs use that belong to zk-lock's metadata
	private static final Pattern OURS = Pattern
		.compile("(zk-lock\\.[a-z0-9.-]*[a-z0-9*]|management\\.health\\.zklock(leadership)?\\.[a-z.-]+"
				+ "|management\\.endpoint\\.(locks|leaders)\\.[a-z.-]+)");

	// properties of the Spring Integration adapter, whose metadata is built after this module: its
	// IntegrationDocsPropertiesTests checks them
	static final String INTEGRATION_PREFIX = "zk-lock.integration.";

	static final Pattern TABLE_ROW = Pattern.compile("^\\| `([^`]+)` \\| (.+?) \\| .* \\|$");

	@Test
	void everyPropertyTheDocsNameExists() {
		Map<String, JsonNode> properties = metadata();
		List<String> names = new ArrayList<>();
		List<String> unknown = new ArrayList<>();
		for (NamedProperty named : namedInDocs((name) -> !name.startsWith(INTEGRATION_PREFIX))) {
			names.add(named.name());
			if (!known(properties, named.name())) {
				unknown.add(named.where());
			}
		}
		assertThat(names).as("property names in the docs").hasSizeGreaterThanOrEqualTo(30);
		assertThat(unknown).as("names that are not in " + METADATA).isEmpty();
	}

	@Test
	void theConfigurationTableListsEveryPropertyWithItsDefault() {
		Map<String, JsonNode> properties = metadata();
		Path page = MarkdownPages.ofRepository().root().resolve(CONFIGURATION);
		Map<String, String> rows = new LinkedHashMap<>();
		for (String line : MarkdownPages.prose(page)) {
			Matcher row = TABLE_ROW.matcher(line);
			if (row.matches() && OURS.matcher(row.group(1)).matches()
					&& !row.group(1).startsWith(INTEGRATION_PREFIX)) {
				assertThat(rows.put(row.group(1), row.group(2))).as("rows for " + row.group(1)).isNull();
			}
		}
		assertThat(rows.keySet()).as("the table in " + CONFIGURATION).containsExactlyInAnyOrderElementsOf(properties.keySet());
		List<String> wrong = new ArrayList<>();
		rows.forEach((name, documented) -> {
			JsonNode defaultValue = properties.get(name).get("defaultValue");
			String expected = (defaultValue == null) ? "(none)" : "`" + defaultValue.asString() + "`";
			if (!documented.startsWith(expected)) {
				wrong.add(name + ": the table says " + documented + ", the code " + expected);
			}
		});
		assertThat(wrong).isEmpty();
	}

	/**
	 * Every zk-lock property name the docs use, in properties blocks and inline code,
	 * that the filter takes.
	 * @param wanted which names to take
	 * @return the names, with where each is
	 */
	static List<NamedProperty> namedInDocs(Predicate<String> wanted) {
		List<NamedProperty> named = new ArrayList<>();
		for (Path page : MarkdownPages.ofRepository().pages()) {
			for (CodeBlock block : MarkdownPages.codeBlocks(page)) {
				if (block.language().equals("properties")) {
					for (String line : block.lines()) {
						String key = line.strip().split("=", 2)[0];
						if (!key.isEmpty() && !key.startsWith("#") && OURS.matcher(key).matches() && wanted.test(key)) {
							named.add(new NamedProperty(key, block.where() + ": " + key));
						}
					}
				}
			}
			for (InlineCode code : MarkdownPages.inlineCode(page)) {
				Matcher name = OURS.matcher(code.text());
				if (name.lookingAt() && !code.text().startsWith("zk-lock.*") && wanted.test(name.group())) {
					named.add(new NamedProperty(name.group(), page.getFileName() + ":" + code.line() + ": "
							+ code.text()));
				}
			}
		}
		return named;
	}

	/**
	 * A property name in the docs.
	 *
	 * @param name the name
	 * @param where the page, line and text that name it
	 */
	record NamedProperty(String name, String where) {

	}

	// a property, or a group of them written as prefix.*
	private static boolean known(Map<String, JsonNode> properties, String name) {
		if (name.endsWith(".*")) {
			String prefix = name.substring(0, name.length() - 1);
			return properties.keySet().stream().anyMatch((property) -> property.startsWith(prefix));
		}
		return properties.containsKey(name);
	}

	private static Map<String, JsonNode> metadata() {
		JsonNode root = new ObjectMapper().readTree(METADATA.toFile());
		Map<String, JsonNode> properties = new LinkedHashMap<>();
		for (JsonNode property : root.get("properties")) {
			properties.put(property.get("name").asString(), property);
		}
		assertThat(properties).as(METADATA + " (run test-compile)").containsKey("zk-lock.connect-string");
		return properties;
	}

}
