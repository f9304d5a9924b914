package dev.zklock.testsupport;

import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A fixture, such as a ZooKeeper server, that a test class shares: a JUnit extension,
 * registered on a static field, that starts it before the class's first test and
 * closes it after its last.
 *
 * <pre class="code">
 * &#64;RegisterExtension
 * static final ClassFixture&lt;InJvmZooKeeper&gt; server = ClassFixture.of(() -&gt; InJvmZooKeeper.builder().start());
 *
 * &#64;Test
 * void locks() {
 *     connect(server.get().connectString());
 * }
 * </pre>
 *
 * @param <T> the fixture's type
 */
public final class ClassFixture<T extends AutoCloseable> implements BeforeAllCallback, AfterAllCallback {

	private final Supplier<T> start;

	private @Nullable T fixture;

	private ClassFixture(Supplier<T> start) {
		this.start = start;
	}

	/**
	 * A fixture that the given supplier starts.
	 * @param <T> the fixture's type
	 * @param start starts the fixture
	 * @return the extension
	 */
	public static <T extends AutoCloseable> ClassFixture<T> of(Supplier<T> start) {
		return new ClassFixture<>(start);
	}

	@Override
	public void beforeAll(ExtensionContext context) {
		this.fixture = this.start.get();
	}

	@Override
	public void afterAll(ExtensionContext context) throws Exception {
		T current = this.fixture;
		this.fixture = null;
		if (current != null) {
			current.close();
		}
	}

	/**
	 * The running fixture.
	 * @return the fixture
	 * @throws IllegalStateException outside the test class's run
	 */
	public T get() {
		T current = this.fixture;
		if (current == null) {
			throw new IllegalStateException("Not started: register the ClassFixture on a static field with "
					+ "@RegisterExtension and use it in tests only");
		}
		return current;
	}

}
