// The payer emails' words in the payment page's Asian and Middle Eastern languages (see ./words.ts).
import type { EmailWords } from './words.ts';

export const zh: EmailWords = {
  period: { weekly: '每周 {amount}', monthly: '每月 {amount}', three_month: '每三个月 {amount}' },
  subject: { subscribed: '您对 {name} 的订阅已生效', renewal_due: '您对 {name} 的订阅需要续费', renewal_auto: '{name} 的续费将自动扣取', paid: '{name} 的续费已支付', failed: '您对 {name} 的订阅已停止', cancelled: '您对 {name} 的订阅已取消' },
  body: {
    subscribed: '感谢您。您在 {merchant} 对 {name} 的订阅已生效：{price}。',
    renewal_due: '您在 {merchant} 对 {name} 的订阅已进入新的周期：{price}。请支付续费以保持订阅有效。',
    renewal_auto: '您在 {merchant} 对 {name} 的订阅已进入新的周期：{price}。该款项将从您授权的钱包中自动扣取，您无需进行任何操作。您可以在订阅页面查看扣款，或取消订阅。',
    paid: '您在 {merchant} 为 {name} 新周期支付的款项已到账：{price}。订阅继续有效。',
    failed: '您在 {merchant} 对 {name} 的续费（{price}）未按时支付，因此订阅已停止。',
    cancelled: '您在 {merchant} 对 {name} 的订阅（{price}）已取消。之后不会再要求续费。',
  },
  pay: '在此支付续费：',
  page: '您的订阅：',
  why: '您收到此邮件，是因为您在 {merchant} 订阅时提供了此地址。',
};

export const ar: EmailWords = {
  period: { weekly: '{amount} أسبوعيًا', monthly: '{amount} شهريًا', three_month: '{amount} كل ثلاثة أشهر' },
  subject: { subscribed: 'اشتراكك في {name} نشط', renewal_due: 'حان موعد تجديد اشتراكك في {name}', renewal_auto: 'سيُحصَّل تجديد {name} تلقائيًا', paid: 'تم دفع تجديد {name}', failed: 'توقف اشتراكك في {name}', cancelled: 'تم إلغاء اشتراكك في {name}' },
  body: {
    subscribed: 'شكرًا لك. اشتراكك في {name} لدى {merchant} نشط: {price}.',
    renewal_due: 'بدأت فترة جديدة من اشتراكك في {name} لدى {merchant}: {price}. ادفع التجديد ليبقى الاشتراك نشطًا.',
    renewal_auto: 'بدأت فترة جديدة من اشتراكك في {name} لدى {merchant}: {price}. سيُحصَّل المبلغ تلقائيًا من المحفظة التي وافقت عليها، فلا داعي لفعل أي شيء. يمكنك متابعته، أو إلغاء الاشتراك، من صفحته.',
    paid: 'وصلت دفعتك للفترة الجديدة من {name} لدى {merchant}: {price}. يبقى الاشتراك نشطًا.',
    failed: 'لم يُدفع تجديد {name} لدى {merchant} ({price}) في الوقت المحدد، لذا توقف الاشتراك.',
    cancelled: 'تم إلغاء اشتراكك في {name} لدى {merchant} ({price}). لن يُطلب أي تجديد آخر.',
  },
  pay: 'ادفع التجديد من هنا:',
  page: 'اشتراكك:',
  why: 'تصلك هذه الرسالة لأنك قدمت هذا العنوان عند الاشتراك لدى {merchant}.',
};

export const fa: EmailWords = {
  period: { weekly: 'هفته‌ای {amount}', monthly: 'ماهانه {amount}', three_month: 'هر سه ماه {amount}' },
  subject: { subscribed: 'اشتراک شما در {name} فعال است', renewal_due: 'زمان تمدید اشتراک {name} فرا رسیده است', renewal_auto: 'تمدید {name} به‌طور خودکار برداشت می‌شود', paid: 'تمدید {name} پرداخت شد', failed: 'اشتراک شما در {name} متوقف شد', cancelled: 'اشتراک شما در {name} لغو شد' },
  body: {
    subscribed: 'سپاس. اشتراک شما در {name} نزد {merchant} فعال است: {price}.',
    renewal_due: 'دوره تازه‌ای از اشتراک شما در {name} نزد {merchant} آغاز شده است: {price}. برای فعال ماندن اشتراک، تمدید را پرداخت کنید.',
    renewal_auto: 'دوره تازه‌ای از اشتراک شما در {name} نزد {merchant} آغاز شده است: {price}. این مبلغ به‌طور خودکار از کیف پولی که تأیید کرده‌اید برداشت می‌شود و لازم نیست کاری انجام دهید. می‌توانید آن را در صفحه اشتراک ببینید یا اشتراک را لغو کنید.',
    paid: 'پرداخت شما برای دوره تازه {name} نزد {merchant} رسید: {price}. اشتراک فعال می‌ماند.',
    failed: 'تمدید {name} نزد {merchant} ({price}) به‌موقع پرداخت نشد، پس اشتراک متوقف شد.',
    cancelled: 'اشتراک شما در {name} نزد {merchant} ({price}) لغو شد. تمدید دیگری درخواست نخواهد شد.',
  },
  pay: 'تمدید را اینجا پرداخت کنید:',
  page: 'اشتراک شما:',
  why: 'این ایمیل را دریافت می‌کنید چون هنگام اشتراک نزد {merchant} این نشانی را داده‌اید.',
};

export const ja: EmailWords = {
  period: { weekly: '毎週 {amount}', monthly: '毎月 {amount}', three_month: '3 か月ごとに {amount}' },
  subject: { subscribed: '{name} の定期購読が有効になりました', renewal_due: '{name} の定期購読の更新時期です', renewal_auto: '{name} の更新料金は自動的に引き落とされます', paid: '{name} の更新料金を受け取りました', failed: '{name} の定期購読が停止しました', cancelled: '{name} の定期購読が解約されました' },
  body: {
    subscribed: 'ありがとうございます。{merchant} の {name} の定期購読が有効になりました: {price}。',
    renewal_due: '{merchant} の {name} の定期購読の新しい期間が始まりました: {price}。有効なままにするには更新料金をお支払いください。',
    renewal_auto: '{merchant} の {name} の定期購読の新しい期間が始まりました: {price}。承認いただいたウォレットから自動的に引き落とされるため、お手続きは不要です。定期購読のページで状況の確認や解約ができます。',
    paid: '{merchant} の {name} の新しい期間のお支払いを受け取りました: {price}。定期購読は引き続き有効です。',
    failed: '{merchant} の {name} の更新（{price}）が期限内に支払われなかったため、定期購読は停止しました。',
    cancelled: '{merchant} の {name} の定期購読（{price}）は解約されました。今後、更新を求めることはありません。',
  },
  pay: '更新料金のお支払いはこちら:',
  page: 'ご利用中の定期購読:',
  why: 'このメールは、{merchant} で定期購読を申し込む際にこのアドレスを入力されたためお送りしています。',
};

export const ko: EmailWords = {
  period: { weekly: '매주 {amount}', monthly: '매월 {amount}', three_month: '3개월마다 {amount}' },
  subject: { subscribed: '{name} 구독이 활성화되었습니다', renewal_due: '{name} 구독을 갱신할 때입니다', renewal_auto: '{name} 갱신 금액이 자동으로 결제됩니다', paid: '{name} 갱신 결제가 완료되었습니다', failed: '{name} 구독이 중지되었습니다', cancelled: '{name} 구독이 취소되었습니다' },
  body: {
    subscribed: '감사합니다. {merchant}의 {name} 구독이 활성화되었습니다: {price}.',
    renewal_due: '{merchant}의 {name} 구독의 새 기간이 시작되었습니다: {price}. 구독을 유지하려면 갱신 금액을 결제하세요.',
    renewal_auto: '{merchant}의 {name} 구독의 새 기간이 시작되었습니다: {price}. 승인하신 지갑에서 자동으로 결제되므로 따로 하실 일은 없습니다. 구독 페이지에서 결제 상황을 확인하거나 구독을 취소할 수 있습니다.',
    paid: '{merchant}의 {name} 새 기간 결제가 도착했습니다: {price}. 구독은 계속 활성 상태입니다.',
    failed: '{merchant}의 {name} 갱신({price})이 기한 내에 결제되지 않아 구독이 중지되었습니다.',
    cancelled: '{merchant}의 {name} 구독({price})이 취소되었습니다. 더 이상 갱신을 요청하지 않습니다.',
  },
  pay: '여기에서 갱신 금액을 결제하세요:',
  page: '내 구독:',
  why: '{merchant}에서 구독할 때 이 주소를 입력하셨기 때문에 이 메일을 받으셨습니다.',
};

export const id: EmailWords = {
  period: { weekly: '{amount} per minggu', monthly: '{amount} per bulan', three_month: '{amount} setiap tiga bulan' },
  subject: { subscribed: 'Langganan {name} Anda aktif', renewal_due: 'Langganan {name} Anda perlu diperpanjang', renewal_auto: 'Perpanjangan {name} akan ditagih otomatis', paid: 'Perpanjangan {name} telah dibayar', failed: 'Langganan {name} Anda berhenti', cancelled: 'Langganan {name} Anda dibatalkan' },
  body: {
    subscribed: 'Terima kasih. Langganan {name} Anda di {merchant} aktif: {price}.',
    renewal_due: 'Periode baru langganan {name} Anda di {merchant} telah dimulai: {price}. Bayar perpanjangannya agar tetap aktif.',
    renewal_auto: 'Periode baru langganan {name} Anda di {merchant} telah dimulai: {price}. Jumlahnya akan ditarik otomatis dari dompet yang Anda setujui, jadi Anda tidak perlu melakukan apa pun. Anda dapat melihatnya, atau membatalkan langganan, di halamannya.',
    paid: 'Pembayaran Anda untuk periode baru {name} di {merchant} telah diterima: {price}. Langganan tetap aktif.',
    failed: 'Perpanjangan {name} di {merchant} ({price}) tidak dibayar tepat waktu, jadi langganan berhenti.',
    cancelled: 'Langganan {name} Anda di {merchant} ({price}) dibatalkan. Tidak akan ada permintaan perpanjangan lagi.',
  },
  pay: 'Bayar perpanjangan di sini:',
  page: 'Langganan Anda:',
  why: 'Anda menerima email ini karena memberikan alamat ini saat berlangganan di {merchant}.',
};

export const vi: EmailWords = {
  period: { weekly: '{amount} mỗi tuần', monthly: '{amount} mỗi tháng', three_month: '{amount} mỗi ba tháng' },
  subject: { subscribed: 'Gói đăng ký {name} của bạn đã hoạt động', renewal_due: 'Gói đăng ký {name} của bạn đến hạn gia hạn', renewal_auto: 'Khoản gia hạn {name} sẽ được thu tự động', paid: 'Đã thanh toán gia hạn {name}', failed: 'Gói đăng ký {name} của bạn đã dừng', cancelled: 'Gói đăng ký {name} của bạn đã bị hủy' },
  body: {
    subscribed: 'Cảm ơn bạn. Gói đăng ký {name} của bạn tại {merchant} đã hoạt động: {price}.',
    renewal_due: 'Một kỳ mới của gói đăng ký {name} tại {merchant} đã bắt đầu: {price}. Hãy thanh toán gia hạn để gói tiếp tục hoạt động.',
    renewal_auto: 'Một kỳ mới của gói đăng ký {name} tại {merchant} đã bắt đầu: {price}. Khoản này sẽ được thu tự động từ ví bạn đã chấp thuận, nên bạn không cần làm gì. Bạn có thể theo dõi khoản thu, hoặc hủy gói đăng ký, trên trang của gói.',
    paid: 'Khoản thanh toán cho kỳ mới của {name} tại {merchant} đã đến: {price}. Gói đăng ký vẫn hoạt động.',
    failed: 'Khoản gia hạn {name} tại {merchant} ({price}) không được thanh toán đúng hạn, nên gói đăng ký đã dừng.',
    cancelled: 'Gói đăng ký {name} của bạn tại {merchant} ({price}) đã bị hủy. Sẽ không có yêu cầu gia hạn nào nữa.',
  },
  pay: 'Thanh toán gia hạn tại đây:',
  page: 'Gói đăng ký của bạn:',
  why: 'Bạn nhận được email này vì đã cung cấp địa chỉ này khi đăng ký tại {merchant}.',
};

export const hi: EmailWords = {
  period: { weekly: '{amount} प्रति सप्ताह', monthly: '{amount} प्रति माह', three_month: 'हर तीन महीने {amount}' },
  subject: { subscribed: '{name} की आपकी सदस्यता सक्रिय है', renewal_due: '{name} की आपकी सदस्यता के नवीनीकरण का समय है', renewal_auto: '{name} का नवीनीकरण अपने-आप वसूला जाएगा', paid: '{name} का नवीनीकरण भुगतान हो गया', failed: '{name} की आपकी सदस्यता रुक गई है', cancelled: '{name} की आपकी सदस्यता रद्द हो गई है' },
  body: {
    subscribed: 'धन्यवाद। {merchant} पर {name} की आपकी सदस्यता सक्रिय है: {price}।',
    renewal_due: '{merchant} पर {name} की आपकी सदस्यता की नई अवधि शुरू हो गई है: {price}। इसे सक्रिय रखने के लिए नवीनीकरण का भुगतान करें।',
    renewal_auto: '{merchant} पर {name} की आपकी सदस्यता की नई अवधि शुरू हो गई है: {price}। यह राशि आपके स्वीकृत वॉलेट से अपने-आप ली जाएगी, इसलिए आपको कुछ नहीं करना है। आप सदस्यता के पेज पर इसे देख सकते हैं या सदस्यता रद्द कर सकते हैं।',
    paid: '{merchant} पर {name} की नई अवधि का आपका भुगतान मिल गया है: {price}। सदस्यता सक्रिय रहेगी।',
    failed: '{merchant} पर {name} का नवीनीकरण ({price}) समय पर नहीं चुकाया गया, इसलिए सदस्यता रुक गई है।',
    cancelled: '{merchant} पर {name} की आपकी सदस्यता ({price}) रद्द हो गई है। आगे कोई नवीनीकरण नहीं माँगा जाएगा।',
  },
  pay: 'नवीनीकरण का भुगतान यहाँ करें:',
  page: 'आपकी सदस्यता:',
  why: 'आपको यह ईमेल इसलिए मिला है क्योंकि आपने {merchant} पर सदस्यता लेते समय यह पता दिया था।',
};

export const th: EmailWords = {
  period: { weekly: 'สัปดาห์ละ {amount}', monthly: 'เดือนละ {amount}', three_month: 'ทุกสามเดือน {amount}' },
  subject: { subscribed: 'การสมัครสมาชิก {name} ของคุณเริ่มใช้งานแล้ว', renewal_due: 'ถึงเวลาต่ออายุการสมัครสมาชิก {name}', renewal_auto: 'ค่าต่ออายุ {name} จะถูกเรียกเก็บโดยอัตโนมัติ', paid: 'ชำระค่าต่ออายุ {name} แล้ว', failed: 'การสมัครสมาชิก {name} ของคุณหยุดแล้ว', cancelled: 'การสมัครสมาชิก {name} ของคุณถูกยกเลิกแล้ว' },
  body: {
    subscribed: 'ขอบคุณ การสมัครสมาชิก {name} ที่ {merchant} ของคุณเริ่มใช้งานแล้ว: {price}',
    renewal_due: 'รอบใหม่ของการสมัครสมาชิก {name} ที่ {merchant} เริ่มแล้ว: {price} โปรดชำระค่าต่ออายุเพื่อให้ยังใช้งานได้',
    renewal_auto: 'รอบใหม่ของการสมัครสมาชิก {name} ที่ {merchant} เริ่มแล้ว: {price} ยอดนี้จะถูกเรียกเก็บโดยอัตโนมัติจากวอลเล็ตที่คุณอนุมัติไว้ คุณไม่ต้องทำอะไร คุณสามารถดูรายการ หรือยกเลิกการสมัครสมาชิกได้ที่หน้าการสมัครสมาชิก',
    paid: 'ได้รับการชำระเงินรอบใหม่ของ {name} ที่ {merchant} แล้ว: {price} การสมัครสมาชิกยังใช้งานได้ต่อไป',
    failed: 'ค่าต่ออายุ {name} ที่ {merchant} ({price}) ไม่ได้ชำระภายในกำหนด การสมัครสมาชิกจึงหยุดแล้ว',
    cancelled: 'การสมัครสมาชิก {name} ที่ {merchant} ({price}) ของคุณถูกยกเลิกแล้ว จะไม่มีการขอต่ออายุอีก',
  },
  pay: 'ชำระค่าต่ออายุที่นี่:',
  page: 'การสมัครสมาชิกของคุณ:',
  why: 'คุณได้รับอีเมลนี้เพราะคุณให้ที่อยู่นี้ไว้ตอนสมัครสมาชิกที่ {merchant}',
};
