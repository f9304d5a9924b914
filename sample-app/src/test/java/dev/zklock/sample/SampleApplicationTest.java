package dev.zklock.sample;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;

/**
 * The sample on a random port with its embedded ZooKeeper and an in-memory database,
 * with orders that expire after a second. Test classes with this annotation share one
 * application context.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
		properties = { "spring.datasource.url=jdbc:h2:mem:sample-tests;DB_CLOSE_DELAY=-1",
				// the in-memory database goes with a temporary ZooKeeper data directory
				"zk-lock.embedded.data-dir=",
				"sample.orders.payment-window=1s", "sample.orders.expiry-interval=200ms",
				// Selenium warns that it has no DevTools support for this Chromium version; it is not used
				"logging.level.org.openqa.selenium.devtools=ERROR", "logging.level.org.openqa.selenium.chromium=ERROR" })
@interface SampleApplicationTest {

}
