package dev.zklock.docs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import javax.xml.parsers.DocumentBuilderFactory;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What users get from Maven Central: {@code zk-lock-bom} lists every published module
 * ({@link SourceTree#PUBLISHED_MODULES}) at the project version, and is itself one of
 * the root's modules.
 */
class PublishedPomsTests {

	private static final Path ROOT = Path.of("..");

	@Test
	void theBomListsEveryPublishedModuleAtTheProjectVersion() throws Exception {
		Element bom = read(ROOT.resolve("zk-lock-bom/pom.xml"));
		Element root = read(ROOT.resolve("pom.xml"));
		assertThat(child(bom, "parent")).as("the BOM has no parent whose dependency management it would leak").isNull();
		assertThat(text(bom, "version")).isEqualTo(text(root, "version"));
		assertThat(text(bom, "packaging")).isEqualTo("pom");
		assertThat(children(child(root, "modules"), "module")).contains("zk-lock-bom");
		List<String> managed = new ArrayList<>();
		Element dependencies = child(child(bom, "dependencyManagement"), "dependencies");
		for (Element dependency : elements(dependencies, "dependency")) {
			assertThat(text(dependency, "groupId")).isEqualTo("dev.zklock");
			assertThat(text(dependency, "version")).isEqualTo("${project.version}");
			managed.add(text(dependency, "artifactId"));
		}
		assertThat(managed).containsExactlyInAnyOrderElementsOf(SourceTree.PUBLISHED_MODULES);
	}

	static Element read(Path pom) throws Exception {
		return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
	}

	static @Nullable Element child(@Nullable Element parent, String name) {
		List<Element> found = elements(parent, name);
		return found.isEmpty() ? null : found.get(0);
	}

	static String text(@Nullable Element parent, String name) {
		Element found = child(parent, name);
		return (found != null) ? found.getTextContent().strip() : "";
	}

	static List<String> children(@Nullable Element parent, String name) {
		return elements(parent, name).stream().map((element) -> element.getTextContent().strip()).toList();
	}

	// the direct children of that name
	static List<Element> elements(@Nullable Element parent, String name) {
		List<Element> found = new ArrayList<>();
		if (parent == null) {
			return found;
		}
		NodeList nodes = parent.getChildNodes();
		for (int i = 0; i < nodes.getLength(); i++) {
			Node node = nodes.item(i);
			if (node instanceof Element element && element.getTagName().equals(name)) {
				found.add(element);
			}
		}
		return found;
	}

}
