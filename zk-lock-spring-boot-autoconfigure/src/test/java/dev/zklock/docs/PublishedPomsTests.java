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
 * the root's modules; every published POM has the elements Central requires (name,
 * description, url, licenses, developers, scm), inherited from the parent or its own;
 * each published jar names its module ({@code Automatic-Module-Name}); the jars are
 * reproducible; and the modules that are not published are not deployed.
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

	@Test
	void everyPublishedPomHasWhatCentralRequires() throws Exception {
		Element root = read(ROOT.resolve("pom.xml"));
		assertCentralMetadata(root);
		assertCentralMetadata(read(ROOT.resolve("zk-lock-bom/pom.xml")));
		// inherited as they are, not suffixed with each module's name
		assertThat(root.getAttribute("child.project.url.inherit.append.path")).isEqualTo("false");
		Element scm = child(root, "scm");
		assertThat(scm).isNotNull();
		for (String element : List.of("url", "connection", "developerConnection")) {
			assertThat(scm.getAttribute("child.scm." + element + ".inherit.append.path")).as(element)
				.isEqualTo("false");
		}
		for (String module : SourceTree.PUBLISHED_MODULES) {
			Element pom = read(ROOT.resolve(module).resolve("pom.xml"));
			assertThat(text(child(pom, "parent"), "artifactId")).as(module).isEqualTo("zk-lock-parent");
			assertThat(text(pom, "name")).as(module + " name").isNotBlank();
			assertThat(text(pom, "description")).as(module + " description").isNotBlank();
		}
	}

	@Test
	void everyPublishedJarNamesItsModuleAndIsReproducible() throws Exception {
		Element root = read(ROOT.resolve("pom.xml"));
		assertThat(text(child(root, "properties"), "project.build.outputTimestamp"))
			.matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
		Element jarPlugin = elements(child(child(root, "build"), "plugins"), "plugin").stream()
			.filter((plugin) -> text(plugin, "artifactId").equals("maven-jar-plugin"))
			.findFirst()
			.orElseThrow();
		Element mainJar = child(child(jarPlugin, "executions"), "execution");
		assertThat(text(mainJar, "id")).isEqualTo("default-jar");
		Element manifest = child(child(child(mainJar, "configuration"), "archive"), "manifestEntries");
		assertThat(text(manifest, "Automatic-Module-Name")).isEqualTo("${zk-lock.module-name}");
		List<String> names = new ArrayList<>();
		for (String module : SourceTree.PUBLISHED_MODULES) {
			String name = text(child(read(ROOT.resolve(module).resolve("pom.xml")), "properties"),
					"zk-lock.module-name");
			assertThat(name).as(module).matches("dev\\.zklock\\.[a-z]+");
			names.add(name);
		}
		assertThat(names).contains("dev.zklock.core", "dev.zklock.autoconfigure").doesNotHaveDuplicates();
	}

	@Test
	void onlyThePublishedModulesAreDeployed() throws Exception {
		List<String> modules = children(child(read(ROOT.resolve("pom.xml")), "modules"), "module");
		assertThat(modules).containsAll(SourceTree.PUBLISHED_MODULES);
		for (String module : modules) {
			String skip = text(child(read(ROOT.resolve(module).resolve("pom.xml")), "properties"), "maven.deploy.skip");
			boolean published = SourceTree.PUBLISHED_MODULES.contains(module) || module.equals("zk-lock-bom");
			assertThat(skip).as(module + " maven.deploy.skip").isEqualTo(published ? "" : "true");
		}
	}

	private static void assertCentralMetadata(Element pom) {
		assertThat(text(pom, "name")).isNotBlank();
		assertThat(text(pom, "description")).isNotBlank();
		assertThat(text(pom, "url")).startsWith("https://");
		Element license = child(child(pom, "licenses"), "license");
		assertThat(text(license, "name")).isNotBlank();
		assertThat(text(license, "url")).startsWith("https://");
		assertThat(text(child(child(pom, "developers"), "developer"), "name")).isNotBlank();
		Element scm = child(pom, "scm");
		assertThat(text(scm, "url")).startsWith("https://");
		assertThat(text(scm, "connection")).startsWith("scm:git:");
		assertThat(text(scm, "developerConnection")).startsWith("scm:git:");
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
