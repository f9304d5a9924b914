package dev.zklock.docs;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import dev.zklock.docs.MarkdownPages.InlineCode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java the docs write inline, in prose, is checked as their code blocks are
 * ({@link DocsCodeBlocksTests}): a call with values, such as
 * {@code locks.revoke("order", orderId)}, is part of a compiled snippet; a method of
 * zk-lock's API named as {@code Type.method(parameters)} exists with that many
 * parameters (on the Java pages: kotlin.md names Kotlin extension functions, which
 * Kotlin blocks compile); and a type named with its package, such as
 * {@code dev.zklock.LockTimeoutException}, is in that package.
 */
class DocsApiReferencesTests {

	// a call on a variable with at least one literal argument: code, not a signature
	private static final Pattern CALL_WITH_VALUES = Pattern
		.compile("[a-z]\\w*\\.[a-z]\\w*\\((?=[^)]*(\"|\\b\\d))[^`]*\\)");

	// Type.method(parameters) or Type.Nested.method(parameters), the whole span
	private static final Pattern METHOD_REFERENCE = Pattern
		.compile("([A-Z]\\w*(?:\\.[A-Z]\\w*)?)\\.([a-z]\\w*)\\(([^()]*)\\)");

	private static final Pattern QUALIFIED_TYPE = Pattern.compile("dev\\.zklock(?:\\.[a-z]\\w*)*\\.[A-Z]\\w*");

	private static final List<String> API_PACKAGES = List.of("dev.zklock", "dev.zklock.core", "dev.zklock.annotation",
			"dev.zklock.autoconfigure", "dev.zklock.testsupport", "dev.zklock.embedded");

	private static final List<Path> SNIPPETS = List.of(Path.of("src/test/java/dev/zklock/docs"),
			Path.of("../zk-lock-core/src/test/java/dev/zklock/docs"));

	private final MarkdownPages docs = MarkdownPages.ofRepository();

	@Test
	void everyInlineCallWithValuesIsPartOfACompiledSnippet() throws IOException {
		List<String> sources = snippetSources();
		List<String> calls = new ArrayList<>();
		List<String> uncompiled = new ArrayList<>();
		for (InlineCode code : spans()) {
			if (CALL_WITH_VALUES.matcher(code.text()).matches()) {
				calls.add(code.text());
				if (sources.stream().noneMatch((source) -> source.contains(code.text()))) {
					uncompiled.add(where(code));
				}
			}
		}
		assertThat(calls).as("inline calls with values in the docs").isNotEmpty();
		assertThat(uncompiled).as("inline calls found in no file of " + SNIPPETS).isEmpty();
	}

	@Test
	void everyApiMethodTheDocsNameExistsWithThatManyParameters() {
		List<String> checked = new ArrayList<>();
		List<String> missing = new ArrayList<>();
		for (InlineCode code : spans()) {
			Matcher reference = METHOD_REFERENCE.matcher(code.text());
			Class<?> type = reference.matches() ? apiType(reference.group(1)) : null;
			if (type == null || code.page().endsWith("kotlin.md")) {
				continue;
			}
			checked.add(code.text());
			if (!hasMethod(type, reference.group(2), reference.group(3))) {
				missing.add(where(code));
			}
		}
		assertThat(checked).as("API methods named in the docs").hasSizeGreaterThanOrEqualTo(5);
		assertThat(missing).as("API methods that do not exist with that many parameters").isEmpty();
	}

	@Test
	void everyQualifiedTypeTheDocsNameIsInThatPackage() {
		List<String> named = spans().stream()
			.flatMap((code) -> QUALIFIED_TYPE.matcher(code.text()).results().map((type) -> type.group()))
			.toList();
		assertThat(named).as("qualified types in the docs").isNotEmpty();
		assertThat(named).as("types that are not where the docs say")
			.allMatch((type) -> load(type) != null || declaredInAnotherModule(type));
	}

	@Test
	void theChecksTellWrongCallsFromRightOnes() {
		assertThat(CALL_WITH_VALUES.matcher("locks.revoke(\"order\", orderId)").matches()).isTrue();
		assertThat(CALL_WITH_VALUES.matcher("locks.async(executor)").matches()).isFalse();
		assertThat(hasMethod(dev.zklock.LockTemplate.class, "revoke", "name, key")).isTrue();
		assertThat(hasMethod(dev.zklock.LockTemplate.class, "revoke", "name")).isFalse();
		assertThat(hasMethod(dev.zklock.LockTemplate.class, "execute", "...")).isTrue();
		assertThat(hasMethod(dev.zklock.LockTemplate.class, "unlock", "...")).isFalse();
		assertThat(load("dev.zklock.LockState")).isNotNull();
		assertThat(load("dev.zklock.core.LockState")).isNull();
	}

	private List<InlineCode> spans() {
		List<InlineCode> spans = new ArrayList<>();
		for (Path page : this.docs.pages()) {
			spans.addAll(MarkdownPages.inlineCode(page));
		}
		return spans;
	}

	private static String where(InlineCode code) {
		return code.page().getFileName() + ":" + code.line() + " `" + code.text() + "`";
	}

	private static List<String> snippetSources() throws IOException {
		List<String> sources = new ArrayList<>();
		for (Path directory : SNIPPETS) {
			try (Stream<Path> files = Files.list(directory)) {
				for (Path file : files.filter((file) -> file.toString().endsWith(".java")).toList()) {
					sources.add(Files.readString(file));
				}
			}
		}
		return sources;
	}

	// "..." stands for any parameters; otherwise the parameters are counted
	static boolean hasMethod(Class<?> type, String name, String parameters) {
		int count = parameters.isBlank() ? 0 : parameters.split(",").length;
		return Arrays.stream(type.getMethods())
			.filter((method) -> Modifier.isPublic(method.getModifiers()))
			.filter((method) -> method.getName().equals(name))
			.mapToInt(Method::getParameterCount)
			.anyMatch((found) -> parameters.strip().equals("...") || found == count);
	}

	private static @Nullable Class<?> apiType(String name) {
		for (String pkg : API_PACKAGES) {
			Class<?> type = load(pkg + "." + name.replace('.', '$'));
			if (type != null) {
				return type;
			}
		}
		return null;
	}

	static @Nullable Class<?> load(String name) {
		try {
			return Class.forName(name, false, DocsApiReferencesTests.class.getClassLoader());
		}
		catch (ClassNotFoundException | LinkageError ex) {
			return null;
		}
	}

	// the adapters' types are not on this module's class path: their sources say where they are
	private static boolean declaredInAnotherModule(String qualifiedName) {
		String file = qualifiedName.replace('.', '/') + ".java";
		return SourceTree.PUBLISHED_MODULES.stream()
			.anyMatch((module) -> Files.isRegularFile(Path.of("..", module, "src/main/java", file)));
	}

}
