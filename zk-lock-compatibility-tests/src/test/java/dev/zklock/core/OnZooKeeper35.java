package dev.zklock.core;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a subclass of {@link AbstractZooKeeperTests} against the ZooKeeper 3.5 server:
 * the superclass's {@code @BeforeAll} starts an in-JVM server of the current line and
 * a client on it; before the class's first test that client is replaced by one on the
 * 3.5 server, and after every test the client must still be on 3.5.
 */
class OnZooKeeper35 implements BeforeEachCallback, AfterEachCallback {

	private static final Namespace NAMESPACE = Namespace.create(OnZooKeeper35.class);

	// extension callbacks run after every @BeforeAll, so the superclass's client exists by now
	@Override
	public void beforeEach(ExtensionContext context) {
		ExtensionContext testClass = context;
		while (testClass.getTestMethod().isPresent()) {
			testClass = testClass.getParent().orElseThrow();
		}
		testClass.getStore(NAMESPACE).getOrComputeIfAbsent("replaced", (key) -> replaceClient());
	}

	@Override
	public void afterEach(ExtensionContext context) {
		assertThat(AbstractZooKeeperTests.client.getZookeeperClient().getCurrentConnectionString())
			.isEqualTo(ZooKeeper35.server().connectString())
			.isNotEqualTo(AbstractZooKeeperTests.server.getConnectString());
	}

	private static Boolean replaceClient() {
		assertThat(ZooKeeper35.server().version()).startsWith("3.5.");
		AbstractZooKeeperTests.client.close();
		try {
			AbstractZooKeeperTests.client = ZooKeeper35.connect();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while connecting to ZooKeeper 3.5", ex);
		}
		return Boolean.TRUE;
	}

}
