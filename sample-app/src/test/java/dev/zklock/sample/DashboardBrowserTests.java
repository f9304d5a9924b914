package dev.zklock.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock dashboard in a real, headless browser: a lock held in the application and
 * a waiter behind it show up on the page, and go away once released.
 */
@BrowserTest
@SampleApplicationTest
class DashboardBrowserTests {

	private static final String KEY = "berlin:kettle";

	@LocalServerPort
	private int port;

	@Autowired
	private LockTemplate locks;

	private ChromeDriver browser;

	@BeforeEach
	void startBrowser() {
		this.browser = HeadlessChromium.start();
	}

	@AfterEach
	void quitBrowser() {
		if (this.browser != null) {
			this.browser.quit();
		}
	}

	@Test
	void aHeldLockAndItsWaiterAppearLiveAndDisappearWhenReleased() throws Exception {
		this.browser.get("http://127.0.0.1:" + this.port + "/");
		WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(30));
		wait.until((page) -> "UP".equals(page.findElement(By.id("zk-status")).getText()));
		assertThat(states("local-locks")).isEmpty();

		CompletableFuture<Boolean> waiter;
		try (LockHandle held = this.locks.tryAcquire(request(Duration.ZERO))) {
			assertThat(held.isAcquired()).isTrue();
			waiter = CompletableFuture.supplyAsync(() -> {
				try (LockHandle next = this.locks.tryAcquire(request(Duration.ofSeconds(60)))) {
					return next.isAcquired();
				}
			});
			wait.until((page) -> states("local-locks").equals(List.of("HELD", "WAITING"))
					&& states("queues").equals(List.of("HELD", "WAITING")));
			assertThat(rows("queues").get(0).get("text")).contains("stock", KEY, "MUTEX", "zk-lock-sample");
			// besides the stock lock, this instance holds the leadership of the expiry job's role
			wait.until((page) -> "2 held, 1 waiting".equals(page.findElement(By.id("zk-counts")).getText()));
			wait.until((page) -> rows("leaders").stream()
				.anyMatch((role) -> role.get("text").contains("order-expiry") && "LEADING".equals(role.get("state"))));
			// for a person to look at
			Files.copy(this.browser.getScreenshotAs(OutputType.FILE).toPath(), Path.of("target", "dashboard.png"),
					StandardCopyOption.REPLACE_EXISTING);
		}
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		wait.until((page) -> states("local-locks").isEmpty() && states("queues").isEmpty());
	}

	private LockRequest request(Duration timeout) {
		return LockRequest.named("stock").keys(KEY).timeout(timeout).build();
	}

	// The states of the rows of the test's key, read in one script so that no refresh comes in between
	private List<String> states(String table) {
		return rows(table).stream()
			.filter((row) -> "stock".equals(row.get("name")) && KEY.equals(row.get("key")))
			.map((row) -> row.get("state"))
			.toList();
	}

	@SuppressWarnings("unchecked")
	private List<Map<String, String>> rows(String table) {
		return (List<Map<String, String>>) ((JavascriptExecutor) this.browser).executeScript("""
				return Array.from(document.querySelectorAll('#' + arguments[0] + ' tbody tr')).map((row) => ({
					name: row.dataset.lockName, key: row.dataset.lockKey, state: row.dataset.state, text: row.innerText
				}));""", table);
	}

}
