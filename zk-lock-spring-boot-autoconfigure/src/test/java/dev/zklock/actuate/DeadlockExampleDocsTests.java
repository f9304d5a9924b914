package dev.zklock.actuate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectMapper;

import dev.zklock.LockDeadlock;
import dev.zklock.LockDeadlock.Edge;
import dev.zklock.LockDeadlock.LockRef;
import dev.zklock.LockDeadlock.Party;
import dev.zklock.LockDeadlockException;
import dev.zklock.annotation.LockMode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The exception's message, the endpoint's view and docs/deadlocks.md show the same
 * example cycle (#42): instance A holds {@code orders:1} and waits for
 * {@code stock:7}, instance B holds {@code stock:7} and waits for {@code orders:1};
 * A's wait is the newest, so the victim. The page must contain the message and the
 * endpoint's JSON exactly as rendered here, each in a block of its own.
 */
class DeadlockExampleDocsTests {

	private static final Path PAGE = Path.of("../docs/deadlocks.md");

	static final Party A = new Party("orders", "host-a", 4711, 0x1000a2b3c4d0005L, "http-nio-8080-exec-3");

	static final Party B = new Party("orders", "host-b", 902, 0x2000a2b3c4d0007L, "worker-2");

	static final LockRef ORDERS = new LockRef("orders", "1", LockMode.MUTEX);

	static final LockRef STOCK = new LockRef("stock", "7", LockMode.MUTEX);

	static final LockDeadlock EXAMPLE = new LockDeadlock(Instant.parse("2026-12-02T14:03:12.611Z"), A,
			List.of(new Edge(A, STOCK, B, STOCK), new Edge(B, ORDERS, A, ORDERS)));

	@Test
	void thePageShowsTheExceptionsMessage() throws IOException {
		String message = new LockDeadlockException(EXAMPLE).getMessage();
		assertThat(message).contains("'orders' key '1' (MUTEX)").contains("'stock' key '7' (MUTEX)");
		assertThat(page()).contains("```text\n" + message + "\n```\n");
	}

	@Test
	void thePageShowsTheEndpointsView() throws IOException {
		String json = new ObjectMapper().writerWithDefaultPrettyPrinter()
			.writeValueAsString(DeadlockDescriptor.of(List.of(EXAMPLE)).get(0));
		assertThat(json).contains("\"victim\"").contains("\"stock\"").contains("\"orders\"");
		assertThat(page()).contains("```json\n" + json + "\n```\n");
	}

	private static String page() throws IOException {
		return Files.readString(PAGE);
	}

}
