package dev.zklock.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;

import dev.zklock.docs.JavaSource.Type;

/**
 * The main Java and Kotlin sources of the published modules, and which of their types a
 * name written in one of them stands for. Names the sources do not declare (the JDK's,
 * a library's) resolve to nothing, so that only the project's own types are compared.
 */
final class SourceTree {

	/** The modules whose jars are published; the sample, benchmarks and test-only modules are not. */
	static final List<String> PUBLISHED_MODULES = List.of("zk-lock-core", "zk-lock-spring-boot-autoconfigure",
			"zk-lock-spring-boot-starter", "zk-lock-spring-boot-embedded", "zk-lock-test", "zk-lock-shedlock",
			"zk-lock-spring-integration");

	private final List<JavaSource> sources;

	private final Map<String, Type> types = new HashMap<>();

	private final Map<Type, JavaSource> declaringSource = new HashMap<>();

	SourceTree(List<JavaSource> sources) {
		this.sources = sources;
		for (JavaSource source : sources) {
			for (Type type : source.types()) {
				this.types.putIfAbsent(type.qualifiedName(), type);
				this.declaringSource.put(type, source);
			}
		}
	}

	/**
	 * The sources under {@code src/main/java} and {@code src/main/kotlin} of each
	 * published module below the root, sorted by path. Test sources, resources and build
	 * output lie elsewhere and are not read.
	 */
	static SourceTree of(Path root) throws IOException {
		List<JavaSource> sources = new ArrayList<>();
		for (String module : PUBLISHED_MODULES) {
			for (String language : List.of("java", "kotlin")) {
				Path directory = root.resolve(module).resolve("src/main").resolve(language);
				if (!Files.isDirectory(directory)) {
					continue;
				}
				try (Stream<Path> files = Files.walk(directory)) {
					for (Path file : files.filter(SourceTree::isSource).sorted().toList()) {
						String path = root.relativize(file).toString().replace('\\', '/');
						sources.add(new JavaSource(path, Files.readString(file)));
					}
				}
			}
		}
		sources.sort((a, b) -> a.path().compareTo(b.path()));
		return new SourceTree(sources);
	}

	private static boolean isSource(Path file) {
		String name = file.getFileName().toString();
		return Files.isRegularFile(file) && (name.endsWith(".java") || name.endsWith(".kt"));
	}

	List<JavaSource> sources() {
		return this.sources;
	}

	List<JavaSource> javaSources() {
		return this.sources.stream().filter((source) -> !source.isKotlin()).toList();
	}

	JavaSource sourceOf(Type type) {
		return this.declaringSource.get(type);
	}

	/**
	 * The project type a name written in the source stands for, or null for a type of
	 * the JDK or a library. A simple name is looked up as Java does: a type of the same
	 * file, a single-type import, the same package, an on-demand import.
	 */
	@Nullable Type resolve(String written, JavaSource source) {
		String name = written.replaceAll("<.*", "").strip();
		int dot = name.indexOf('.');
		if (dot > 0) {
			Type type = this.types.get(name);
			if (type != null) {
				return type;
			}
			// Outer.Inner: the first name as a simple name, the rest inside it
			Type outer = resolve(name.substring(0, dot), source);
			return (outer != null) ? this.types.get(outer.qualifiedName() + name.substring(dot)) : null;
		}
		for (Type type : source.types()) {
			if (type.name().equals(name)) {
				return type;
			}
		}
		for (String imported : source.imports()) {
			if (imported.endsWith("." + name)) {
				return this.types.get(imported);
			}
		}
		Type samePackage = this.types.get(qualified(source.packageName(), name));
		if (samePackage != null) {
			return samePackage;
		}
		for (String imported : source.imports()) {
			if (imported.endsWith(".*")) {
				Type type = this.types.get(imported.substring(0, imported.length() - 1) + name);
				if (type != null) {
					return type;
				}
			}
		}
		return null;
	}

	/**
	 * The project superclass of the class, or null if it extends none.
	 */
	@Nullable Type superclass(Type type) {
		return (type.superclass() != null) ? resolve(type.superclass(), sourceOf(type)) : null;
	}

	private static String qualified(String packageName, String name) {
		return packageName.isEmpty() ? name : packageName + "." + name;
	}

}
